import { GyreError } from "../errors.js";

/**
 * The HTTP status an error reported inside a 200 stream stands for, when that status would be
 * retried before the headers (429 rate limit, 529 overloaded, 503 unavailable); `undefined` for
 * any other error. `status` is a numeric code the provider gave (Gemini's `error.code`); `text`
 * is its code, type and message words, matched the same way for every API so that the same
 * fault gets the same treatment wherever it shows up.
 */
export function retryableStreamErrorStatus(error: { status?: number | undefined; text: string }): number | undefined {
  const { status, text } = error;
  if (status === 429 || status === 529 || status === 408 || (status !== undefined && status >= 500)) return status;
  if (/rate.?limit|too many requests|resource.?exhausted|\b429\b/i.test(text)) return 429;
  if (/overload|capacity|\b529\b/i.test(text)) return 529;
  if (/server_error|api_error|unavailable|\binternal\b|\b50[0234]\b/i.test(text)) return 503;
  return undefined;
}

/**
 * Throws `message` as a `GyreError("http")` carrying the retryable status of the in-stream
 * error, so `runProvider` sends the request again when the attempt kept no output (the same
 * backoff as a 529 before the headers). Returns normally when the error is not retryable; the
 * caller then ends the stream with it.
 */
export function throwIfRetryableStreamError(
  message: string,
  error: { status?: number | undefined; text: string },
): void {
  const status = retryableStreamErrorStatus(error);
  if (status !== undefined) throw new GyreError("http", message, { status });
}

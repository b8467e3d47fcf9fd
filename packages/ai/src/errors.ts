/** Error codes callers branch on. */
export type GyreErrorCode =
  | "http"
  | "network"
  | "timeout"
  | "aborted"
  | "retry_wait_too_long"
  | "bad_stream"
  | "missing_api_key"
  | "session_locked"
  | "unknown_api"
  | "usage";

/** The one error class of gyre. Crosses no boundary: convert to an `errorMessage` string first. */
export class GyreError extends Error {
  readonly code: GyreErrorCode;
  readonly status: number | undefined;

  constructor(code: GyreErrorCode, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "GyreError";
    this.code = code;
    this.status = options.status;
  }
}

/** Whether `error` is the error an aborted signal produces (ours or the platform's). */
export function isAbortError(error: unknown): boolean {
  if (error instanceof GyreError) return error.code === "aborted";
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

/** A message string for any thrown value. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

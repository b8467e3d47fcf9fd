/** Error codes callers branch on. */
export type GyreErrorCode =
  | "http"
  | "network"
  | "timeout"
  | "aborted"
  | "retry_wait_too_long"
  | "bad_stream"
  | "missing_api_key"
  | "unknown_api";

/**
 * The one error class of gyre. Crosses no boundary: convert to an `errorMessage` string first.
 * Each package owns its codes: this one's are the provider layer's; the CLI subclasses it with its own.
 */
export class GyreError<Code extends string = GyreErrorCode> extends Error {
  readonly code: Code;
  readonly status: number | undefined;

  constructor(code: Code, message: string, options: { status?: number; cause?: unknown } = {}) {
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

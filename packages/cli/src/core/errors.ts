import { GyreError } from "@gyre/ai";

/** What went wrong in the CLI, for callers that branch and for the exit code. */
export type CliErrorCode =
  /** Flags or arguments that make no sense together or name nothing usable. */
  | "bad_usage"
  /** A settings, models or faux-script file that is broken. */
  | "config_invalid"
  /** `--session` names no session file. */
  | "session_not_found"
  /** A session file exists but the OS refuses to read it (permissions, I/O). */
  | "session_unreadable"
  /** The file named is not a gyre session, or one of a newer format (update gyre). */
  | "session_invalid"
  /** Another live gyre holds the session's lock. */
  | "session_locked"
  /** The disk refused a session write, or the file was replaced while open. */
  | "session_write_failed"
  /** Our own API used out of order (appending to a closed or read-only session). */
  | "session_misuse"
  | "nothing_to_compact"
  | "compaction_failed";

/** The CLI's error: a sentence saying what to do, and a code. */
export class CliError extends GyreError<CliErrorCode> {
  constructor(code: CliErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
    this.name = "CliError";
  }
}

const badUsageCodes: ReadonlySet<string> = new Set<CliErrorCode>([
  "bad_usage",
  "config_invalid",
  "session_not_found",
  "session_invalid",
]);

/**
 * The process exit code for an error that ended gyre: 2 only when the user can fix the command
 * line or a config file (bad usage), 1 for everything else (a full disk, a failed summary, a lock).
 */
export function exitCodeFor(error: unknown): 1 | 2 {
  return error instanceof CliError && badUsageCodes.has(error.code) ? 2 : 1;
}

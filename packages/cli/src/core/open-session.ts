import { stat } from "node:fs/promises";
import { GyreError } from "@gyre/ai";
import type { CliArgs } from "../args.js";
import { SessionManager } from "./session/session-manager.js";
import { findNewestSession, resolveSessionArgument } from "./session/session-store.js";

/**
 * Opens the session the flags ask for: in memory (`--no-session`), the newest of this folder
 * (`--continue`; a new one if there is none), a given one (`--session`), or a new one.
 * Interrupted tool calls of a resumed session get their synthetic results before any model call.
 */
export async function openSessionForArgs(
  args: Pick<CliArgs, "noSession" | "continueSession" | "session" | "fork">,
  options: {
    cwd: string;
    sessionsDir: string;
    /**
     * Told of each session file `--continue` passes over because it cannot be read, and of a
     * file that is continued in a new session because its header is damaged or newer.
     */
    onSkippedSession?: (message: string) => void;
  },
): Promise<SessionManager> {
  if (args.noSession) return SessionManager.inMemory({ cwd: options.cwd });
  let path: string | undefined;
  if (args.session) {
    path = await resolveSessionArgument({ ...options, value: args.session });
    await assertSessionFile(path);
  } else if (args.continueSession) {
    const { onSkippedSession } = options;
    path = await findNewestSession({
      ...options,
      onSkip: (skipped, reason) =>
        onSkippedSession?.(`--continue passed over ${skipped}: ${reason}. The file was not changed.`),
    });
  }
  if (!path) return SessionManager.create({ sessionsDir: options.sessionsDir, cwd: options.cwd });
  if (args.fork) {
    // Read-only: the original may be open (and locked) in another gyre; the copy is ours.
    const source = await SessionManager.open(path, { readOnly: true });
    const forked = await source.fork({ sessionsDir: options.sessionsDir, cwd: source.cwd || options.cwd });
    forked.repairInterruptedToolCalls();
    return forked;
  }
  let session: SessionManager;
  try {
    session = await SessionManager.open(path);
  } catch (error) {
    if (error instanceof GyreError && error.code === "session_locked") {
      throw new GyreError("session_locked", `${error.message} To continue in a copy now, add --fork.`);
    }
    throw error;
  }
  if (session.headerProblem !== undefined) {
    const forked = await session.fork({ sessionsDir: options.sessionsDir, cwd: options.cwd });
    options.onSkippedSession?.(
      `Session ${path} cannot be continued in place (${session.headerProblem}); its ${session.getBranch().length} readable entries continue in a new session ${forked.path}. The file was not changed.`,
    );
    session = forked;
  }
  session.repairInterruptedToolCalls();
  return session;
}

/** A directory or a FIFO given as `--session` is a usage error, not a hang or an errno dump. */
async function assertSessionFile(path: string): Promise<void> {
  const info = await stat(path);
  if (info.isDirectory()) {
    throw new GyreError("usage", `${path} is a directory; pass a session .jsonl file or the start of a session id.`);
  }
  if (!info.isFile()) {
    throw new GyreError(
      "usage",
      `${path} is not a regular file; pass a session .jsonl file or the start of a session id.`,
    );
  }
}

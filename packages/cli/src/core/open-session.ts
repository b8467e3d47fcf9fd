import type { CliArgs } from "../args.js";
import { SessionManager } from "./session/session-manager.js";
import { findNewestSession, resolveSessionArgument } from "./session/session-store.js";

/**
 * Opens the session the flags ask for: in memory (`--no-session`), the newest of this folder
 * (`--continue`; a new one if there is none), a given one (`--session`), or a new one.
 * Interrupted tool calls of a resumed session get their synthetic results before any model call.
 */
export async function openSessionForArgs(
  args: Pick<CliArgs, "noSession" | "continueSession" | "session">,
  options: { cwd: string; sessionsDir: string },
): Promise<SessionManager> {
  if (args.noSession) return SessionManager.inMemory({ cwd: options.cwd });
  let path: string | undefined;
  if (args.session) path = await resolveSessionArgument({ ...options, value: args.session });
  else if (args.continueSession) path = await findNewestSession(options);
  if (!path) return SessionManager.create({ sessionsDir: options.sessionsDir, cwd: options.cwd });
  const session = await SessionManager.open(path);
  session.repairInterruptedToolCalls();
  return session;
}

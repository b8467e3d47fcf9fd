import { stat } from "node:fs/promises";
import { CliError } from "./errors.js";
import type { RuntimeNotice } from "./inspect-project.js";
import type { SessionChoice } from "./runtime-config.js";
import type { Redactor } from "./session/redact-secrets.js";
import type { SessionJournals } from "./session/session-journal.js";
import { SessionManager } from "./session/session-manager.js";
import { findNewestSession, resolveSessionArgument } from "./session/session-store.js";

/**
 * Opens the session `choice` asks for: in memory, the newest of this folder (a new one if there
 * is none), a given one, or a new one; `fork` continues in a copy. Interrupted tool calls of a
 * resumed session get their synthetic results before any model call. Files `continue` passes
 * over and damaged lines skipped come back as `problem` notices.
 */
export async function openSessionStore(
  choice: SessionChoice,
  options: { cwd: string; sessionsDir: string; mode?: string; journals?: SessionJournals; redact?: Redactor },
): Promise<{ store: SessionManager; notices: RuntimeNotice[] }> {
  const notices: RuntimeNotice[] = [];
  const store = await openChoice(choice, options, (text) => notices.push({ level: "problem", text }));
  if (store.problems.length > 0) {
    const shown = store.problems.slice(0, 3).map((problem) => `line ${problem.line}: ${problem.message}`);
    const more = store.problems.length > 3 ? `; and ${store.problems.length - 3} more` : "";
    notices.push({
      level: "problem",
      text: `Session ${store.path}: skipped ${store.problems.length} damaged line(s) (${shown.join("; ")}${more}); the rest was loaded and the file was not changed.`,
    });
  }
  return { store, notices };
}

async function openChoice(
  choice: SessionChoice,
  options: { cwd: string; sessionsDir: string; mode?: string; journals?: SessionJournals; redact?: Redactor },
  onSkipped: (message: string) => void,
): Promise<SessionManager> {
  const seams = {
    ...(options.journals ? { journals: options.journals } : {}),
    ...(options.redact ? { redact: options.redact } : {}),
  };
  if (choice.kind === "memory") return SessionManager.inMemory({ cwd: options.cwd });
  let path: string | undefined;
  if (choice.kind === "open") {
    path = await resolveSessionArgument({ ...options, value: choice.pathOrId });
    await assertSessionFile(path);
  } else if (choice.kind === "continue") {
    path = await findNewestSession({
      ...options,
      onSkip: (skipped, reason) => onSkipped(`--continue passed over ${skipped}: ${reason}. The file was not changed.`),
    });
  }
  if (!path || choice.kind === "new")
    return SessionManager.create({
      ...seams,
      sessionsDir: options.sessionsDir,
      cwd: options.cwd,
      ...(options.mode !== undefined && { mode: options.mode }),
    });
  if (choice.fork) {
    // Read-only: the original may be open (and locked) in another gyre; the copy is ours.
    const source = await SessionManager.open(path, { ...seams, readOnly: true });
    const forked = await source.fork({ sessionsDir: options.sessionsDir, cwd: source.cwd || options.cwd });
    forked.repairInterruptedToolCalls();
    return forked;
  }
  let session: SessionManager;
  try {
    session = await SessionManager.open(path, seams);
  } catch (error) {
    if (error instanceof CliError && error.code === "session_locked") {
      throw new CliError("session_locked", `${error.message} To continue in a copy now, add --fork.`);
    }
    throw error;
  }
  if (session.headerProblem !== undefined) {
    const forked = await session.fork({ sessionsDir: options.sessionsDir, cwd: options.cwd });
    onSkipped(
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
    throw new CliError("bad_usage", `${path} is a directory; pass a session .jsonl file or the start of a session id.`);
  }
  if (!info.isFile()) {
    throw new CliError(
      "bad_usage",
      `${path} is not a regular file; pass a session .jsonl file or the start of a session id.`,
    );
  }
}

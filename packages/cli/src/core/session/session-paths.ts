/** Where session files live: `<sessionsDir>/<cwd-slug>/<timestamp>_<uuid>.jsonl`. */
import { createHash } from "node:crypto";
import { join } from "node:path";

/**
 * A directory name for a working directory: readable, and unique through a short hash (so
 * `/a/b-c` and `/a-b/c` never share a folder).
 */
export function cwdSlug(cwd: string): string {
  const readable = cwd
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(-80);
  const hash = createHash("sha256").update(cwd).digest("hex").slice(0, 8);
  return `${readable || "root"}-${hash}`;
}

/** The folder holding the sessions of `cwd`. */
export function sessionDirFor(sessionsDir: string, cwd: string): string {
  return join(sessionsDir, cwdSlug(cwd));
}

/** The path of a new session file; the timestamp makes names sort by creation time. */
export function newSessionPath(options: { sessionsDir: string; cwd: string; id: string; date: Date }): string {
  const stamp = options.date.toISOString().replace(/[:.]/g, "-");
  return join(sessionDirFor(options.sessionsDir, options.cwd), `${stamp}_${options.id}.jsonl`);
}

const fileNamePattern = /^(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z)_([0-9a-f-]{36})\.jsonl$/;

/** The session id a file name carries, or undefined when it is not a session file name. */
export function sessionIdFromFileName(name: string): string | undefined {
  return fileNamePattern.exec(name)?.[2];
}

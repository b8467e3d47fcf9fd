/**
 * Renaming and deleting a session that is not open here (the `--resume` picker). Both take the
 * session's lock first, so a session another gyre has open is never changed under it: they throw
 * its `CliError` ("session_locked") instead.
 */
import { unlink } from "node:fs/promises";
import { acquireSessionLock } from "./session-lock.js";
import { SessionManager } from "./session-manager.js";

/** Names the session at `path` (a `session_info` entry appended, as `/name` does). */
export async function renameSessionFile(path: string, name: string): Promise<void> {
  const session = await SessionManager.open(path);
  try {
    session.setName(name);
    await session.flush();
  } finally {
    await session.close();
  }
}

/** Deletes the session file at `path`; its lock is held meanwhile and then removed. */
export async function deleteSessionFile(path: string): Promise<void> {
  const lock = await acquireSessionLock(path);
  try {
    await unlink(path);
  } finally {
    await lock.release();
  }
}

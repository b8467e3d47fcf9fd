/**
 * An exclusive lock on a session file, so two processes never append to the same session.
 * The lock is `<session>.lock`, created with O_EXCL and holding `{pid, host, timestamp}`.
 * A lock left by a crashed process on this host (its pid is gone) is reclaimed.
 */
import { unlinkSync } from "node:fs";
import { open, readFile, rename, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { CliError } from "../errors.js";

/** What a lock file records about its holder. */
export type LockOwner = { pid: number; host: string; timestamp: string };

/** A held lock; `release()` is idempotent and never throws. */
export type SessionLock = { path: string; release(): Promise<void> };

/** Path of the lock file of a session file. */
export function lockPathFor(sessionPath: string): string {
  return `${sessionPath}.lock`;
}

/**
 * Takes the lock of `sessionPath`. Throws a `CliError` ("session_locked") naming the holder when a live
 * process holds it; the message suggests forking instead. Reclaims a lock whose process is dead.
 */
export async function acquireSessionLock(sessionPath: string): Promise<SessionLock> {
  const path = lockPathFor(sessionPath);
  const owner: LockOwner = { pid: process.pid, host: hostname(), timestamp: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await tryCreate(path, owner)) return createHeldLock(path);
    const holder = await readOwner(path);
    if (holder === undefined) continue; // vanished between our attempts, or half-written: try again
    if (!isStale(holder)) throw lockedError(sessionPath, path, holder);
    await reclaim(path, holder);
  }
  throw new CliError(
    "session_locked",
    `Could not lock session ${sessionPath}: the lock ${path} keeps changing. Try again.`,
  );
}

async function tryCreate(path: string, owner: LockOwner): Promise<boolean> {
  try {
    const handle = await open(path, "wx");
    try {
      await handle.writeFile(`${JSON.stringify(owner)}\n`);
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    const value: unknown = JSON.parse(await readFile(path, "utf8"));
    if (typeof value !== "object" || value === null) return undefined;
    const { pid, host, timestamp } = value as Record<string, unknown>;
    if (typeof pid !== "number" || typeof host !== "string") return undefined;
    return { pid, host, timestamp: typeof timestamp === "string" ? timestamp : "" };
  } catch {
    return undefined;
  }
}

/** A lock is stale when it was taken on this host by a process that no longer exists. */
function isStale(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return false; // another machine's pid means nothing here
  if (owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Moves the stale lock aside, then checks that what was moved is the stale lock we judged: if
 * another process reclaimed it first and already holds a fresh lock, put that one back.
 */
async function reclaim(path: string, stale: LockOwner): Promise<void> {
  const aside = `${path}.stale-${process.pid}`;
  try {
    await rename(path, aside);
  } catch {
    return;
  }
  const moved = await readOwner(aside);
  if (moved && (moved.pid !== stale.pid || moved.timestamp !== stale.timestamp)) {
    await rename(aside, path).catch(() => undefined);
    return;
  }
  await unlink(aside).catch(() => undefined);
}

/**
 * A lock also goes when the process exits without closing the session. The exit hook must be
 * synchronous (Node runs no async work in "exit"); it is the only sync fs call here and runs once.
 */
function createHeldLock(path: string): SessionLock {
  let released = false;
  const onExit = () => {
    try {
      unlinkSync(path);
    } catch {
      // already gone: nothing to clean up
    }
  };
  process.once("exit", onExit);
  return {
    path,
    async release() {
      if (released) return;
      released = true;
      process.removeListener("exit", onExit);
      await unlink(path).catch(() => undefined);
    },
  };
}

function lockedError(sessionPath: string, lockPath: string, holder: LockOwner): CliError {
  const where = holder.host === hostname() ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`;
  return new CliError(
    "session_locked",
    `Session ${sessionPath} is open in another gyre (${where}, since ${holder.timestamp}). ` +
      `Fork it to continue separately, or close the other gyre. If no other gyre is running, delete ${lockPath}.`,
  );
}

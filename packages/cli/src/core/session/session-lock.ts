/**
 * An exclusive lock on a session file, so two processes never append to the same session.
 * The lock is `<session>.lock`, created with O_EXCL and holding `{pid, host, timestamp}`.
 * A lock left by a crashed process on this host (its pid is gone) is reclaimed, and so is a lock
 * left empty or unreadable for over a second (a crash between creating and writing it).
 */
import { unlinkSync } from "node:fs";
import { open, readFile, rename, stat, unlink } from "node:fs/promises";
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
  const deadline = Date.now() + 2 * UNREADABLE_STALE_MS;
  while (Date.now() < deadline) {
    if (await tryCreate(path, owner)) return createHeldLock(path);
    const holder = await readOwner(path);
    if (holder !== undefined) {
      if (!isStale(holder)) throw lockedError(sessionPath, path, holder);
      await reclaim(path, holder);
    } else if (await isOldUnreadable(path)) {
      // Empty or garbled for longer than any writer takes: a crash (or a full disk) between
      // the O_EXCL create and the write. Nobody can be holding it.
      await reclaim(path, undefined);
    } else await new Promise((resolve) => setTimeout(resolve, 50)); // being written right now
  }
  throw new CliError(
    "session_locked",
    `Could not lock session ${sessionPath}: the lock ${path} keeps changing. If no other gyre is running, delete it.`,
  );
}

/** How long a lock may stay empty or unreadable while its creator writes it. */
const UNREADABLE_STALE_MS = 1000;

async function isOldUnreadable(path: string): Promise<boolean> {
  try {
    return Date.now() - (await stat(path)).mtimeMs > UNREADABLE_STALE_MS;
  } catch {
    return false; // gone: the next create may succeed
  }
}

async function tryCreate(path: string, owner: LockOwner): Promise<boolean> {
  try {
    const handle = await open(path, "wx", 0o600);
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
async function reclaim(path: string, stale: LockOwner | undefined): Promise<void> {
  const aside = `${path}.stale-${process.pid}`;
  try {
    await rename(path, aside);
  } catch {
    return;
  }
  const moved = await readOwner(aside);
  if (moved && (moved.pid !== stale?.pid || moved.timestamp !== stale.timestamp)) {
    await rename(aside, path).catch(() => undefined);
    return;
  }
  await unlink(aside).catch(() => undefined);
}

/** A foreign host's lock older than this counts as left behind (the library side of `gyre doctor --fix`). */
export const FOREIGN_LOCK_STALE_MS = 24 * 60 * 60 * 1000;

/** What `reclaimLeftLock` found and did. */
export type LeftLockOutcome =
  | { kind: "none" }
  | { kind: "reclaimed"; holder: LockOwner | undefined }
  | { kind: "kept"; holder: LockOwner; reason: string };

/**
 * For a repair the user asked for: removes the lock of `sessionPath` when nobody can be holding
 * it: this host's dead process, an unreadable lock, or another host's lock taken longer ago than
 * `olderThanMs` (a pid on another machine cannot be checked, so age is the only evidence; gyre
 * never does this on its own). A live or recent lock is kept, with the sentence saying why.
 */
export async function reclaimLeftLock(
  sessionPath: string,
  options: { olderThanMs?: number; now?: number } = {},
): Promise<LeftLockOutcome> {
  const path = lockPathFor(sessionPath);
  const exists = await stat(path).then(
    () => true,
    () => false,
  );
  if (!exists) return { kind: "none" };
  const holder = await readOwner(path);
  if (holder === undefined) {
    if (!(await isOldUnreadable(path)))
      return { kind: "kept", holder: { pid: 0, host: "", timestamp: "" }, reason: "it is being written right now" };
    await reclaim(path, undefined);
    return { kind: "reclaimed", holder: undefined };
  }
  if (holder.host === hostname()) {
    if (!isStale(holder)) return { kind: "kept", holder, reason: `process ${holder.pid} on this host is running` };
    await reclaim(path, holder);
    return { kind: "reclaimed", holder };
  }
  const olderThanMs = options.olderThanMs ?? FOREIGN_LOCK_STALE_MS;
  // Without a readable time of its own, the lock file's modification time stands in.
  const taken = Date.parse(holder.timestamp);
  const since = Number.isFinite(taken) ? taken : (await stat(path)).mtimeMs;
  const age = (options.now ?? Date.now()) - since;
  if (age < olderThanMs)
    return {
      kind: "kept",
      holder,
      reason: `it was taken on ${holder.host} ${Math.round(age / 60_000)} min ago, less than ${Math.round(olderThanMs / 3_600_000)} h; that gyre may still run`,
    };
  await reclaim(path, holder);
  return { kind: "reclaimed", holder };
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

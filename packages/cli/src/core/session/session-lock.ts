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

/** What `judgeLeftLock` found: no lock, one nobody can be holding, or one that may be in use. */
export type LeftLockJudgement =
  | { kind: "none" }
  | { kind: "left"; holder: LockOwner | undefined; reason: string }
  | { kind: "kept"; holder: LockOwner | undefined; reason: string };

/** What `reclaimLeftLock` found and did. */
export type LeftLockOutcome =
  | { kind: "none" }
  | { kind: "reclaimed"; holder: LockOwner | undefined; reason: string }
  | { kind: "kept"; holder: LockOwner | undefined; reason: string };

/**
 * Judges the lock of `sessionPath` without changing it. Nobody can be holding it ("left") when
 * it names this host's dead process, is unreadable for over a second, or names another host and
 * was taken longer ago than `olderThanMs` (a pid on another machine cannot be checked, so age is
 * the only evidence; gyre never acts on that on its own). `reason` is a clause saying why.
 */
export async function judgeLeftLock(
  sessionPath: string,
  options: { olderThanMs?: number; now?: number } = {},
): Promise<LeftLockJudgement> {
  const path = lockPathFor(sessionPath);
  const info = await stat(path).catch(() => undefined);
  if (!info) return { kind: "none" };
  const holder = await readOwner(path);
  if (holder === undefined) {
    return (await isOldUnreadable(path))
      ? { kind: "left", holder, reason: "it is empty or unreadable (a crash while it was written)" }
      : { kind: "kept", holder, reason: "it is being written right now" };
  }
  if (holder.host === hostname()) {
    return isStale(holder)
      ? { kind: "left", holder, reason: `process ${holder.pid} on this host, which took it, is gone` }
      : { kind: "kept", holder, reason: `process ${holder.pid} on this host is running` };
  }
  const olderThanMs = options.olderThanMs ?? FOREIGN_LOCK_STALE_MS;
  // Without a readable time of its own, the lock file's modification time stands in.
  const taken = Date.parse(holder.timestamp);
  const age = (options.now ?? Date.now()) - (Number.isFinite(taken) ? taken : info.mtimeMs);
  const bound = `${Math.round(olderThanMs / 3_600_000)} h`;
  const where = `process ${holder.pid} on ${holder.host} took it ${describeAge(age)} ago`;
  return age < olderThanMs
    ? { kind: "kept", holder, reason: `${where}, less than ${bound}; that gyre may still run` }
    : { kind: "left", holder, reason: `${where}, more than ${bound}: a lock of another host that old was left behind` };
}

/**
 * For a repair the user asked for (`gyre doctor --fix`): removes the lock of `sessionPath` when
 * `judgeLeftLock` finds nobody can be holding it. A live or recent lock is kept, saying why.
 */
export async function reclaimLeftLock(
  sessionPath: string,
  options: { olderThanMs?: number; now?: number } = {},
): Promise<LeftLockOutcome> {
  const judgement = await judgeLeftLock(sessionPath, options);
  if (judgement.kind !== "left") return judgement;
  await reclaim(lockPathFor(sessionPath), judgement.holder);
  return { kind: "reclaimed", holder: judgement.holder, reason: judgement.reason };
}

function describeAge(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} days`;
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
  const here = holder.host === hostname();
  const where = here ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`;
  // A pid on another machine cannot be checked from here; doctor removes such a lock once it is old.
  const left = here
    ? `If no other gyre is running, delete ${lockPath}.`
    : `If no gyre runs on ${holder.host} any more, run gyre doctor ${sessionPath} --fix (it removes another host's lock older than ${FOREIGN_LOCK_STALE_MS / 3_600_000} h) or delete ${lockPath}.`;
  return new CliError(
    "session_locked",
    `Session ${sessionPath} is open in another gyre (${where}, since ${holder.timestamp}). ` +
      `Fork it to continue separately, or close the other gyre. ${left}`,
  );
}

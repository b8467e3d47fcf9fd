/**
 * Where a session's journal lives: `SessionStore` appends lines, reads them all back and lists
 * sessions. The local store is a folder of JSONL files (what a plain gyre writes); the Redis store
 * keeps one Redis Stream per session, and an append resolves only once Redis acknowledged the
 * XADD, so a worker's journal is durable before the run goes on. A gyre run started by a worker
 * writes through the Redis store directly (`sessionJournalsFromEnv`, passed to the session store as core/session's
 * journal seam): there is no copy lagging behind the session file.
 */
import { mkdir, open, readdir, readFile } from "node:fs/promises";
import * as nodePath from "node:path";
import type { SessionJournals } from "gyre/fleet-support";
import type { Redis } from "ioredis";

/** A session journal backend; ids are the store's own (a job id, a file name). */
export type SessionStore = {
  /** Appends complete lines (no "\n") in order; resolves once they are durable. */
  append(sessionId: string, lines: readonly string[]): Promise<void>;
  /** Every line of the session, in order; empty when it has none. */
  readAll(sessionId: string): Promise<string[]>;
  /** The ids of the sessions the store holds. */
  list(): Promise<string[]>;
};

/** JSONL files `<dir>/<id>.jsonl`, each append fsynced (the default, local store). */
export function createFileSessionStore(dir: string): SessionStore {
  const fileOf = (sessionId: string) => nodePath.join(dir, `${sessionId}.jsonl`);
  return {
    async append(sessionId, lines) {
      if (lines.length === 0) return;
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const handle = await open(fileOf(sessionId), "a", 0o600);
      try {
        await handle.write(`${lines.join("\n")}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
    },
    async readAll(sessionId) {
      const text = await readFile(fileOf(sessionId), "utf8").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return "";
        throw error;
      });
      return text.split("\n").filter((line) => line.trim() !== "");
    },
    async list() {
      const names = await readdir(dir).catch(() => [] as string[]);
      return names.filter((name) => name.endsWith(".jsonl")).map((name) => name.slice(0, -".jsonl".length));
    },
  };
}

/**
 * One Redis Stream per session, key `keyOf(id)`, each entry's field `line` one line, entry ids
 * `0-1`, `0-2`, … in line order. ioredis queues commands while disconnected and, after a
 * reconnect, sends again those whose reply it lost: with ids of our own such a resend cannot
 * store a line twice (Redis refuses an id at or below the last one; the line already there is
 * checked to be ours). Another writer's lines in between are refused the same way: fail closed.
 */
export function createRedisSessionStore(redis: Redis, keyOf: (sessionId: string) => string): SessionStore {
  const next = new Map<string, number>();
  const nextSequence = async (key: string) => {
    const known = next.get(key);
    if (known !== undefined) return known;
    const [last] = await redis.xrevrange(key, "+", "-", "COUNT", 1);
    return last === undefined ? 1 : Number(last[0].split("-")[1]) + 1;
  };
  return {
    async append(sessionId, lines) {
      if (lines.length === 0) return;
      const key = keyOf(sessionId);
      const first = await nextSequence(key);
      const batch = redis.multi();
      for (const [index, line] of lines.entries()) batch.xadd(key, `0-${first + index}`, "line", line);
      const replies = await batch.exec();
      if (replies === null) throw new Error("Redis did not store the journal: the transaction was aborted.");
      for (const [index, [error]] of replies.entries()) {
        if (error === null) continue;
        const id = `0-${first + index}`;
        const [stored] = await redis.xrange(key, id, id);
        const line = stored?.[1][stored[1].indexOf("line") + 1];
        if (line !== lines[index]) throw new Error(`Redis did not store the journal line ${id}: ${error.message}`);
      }
      next.set(key, first + lines.length);
    },
    async readAll(sessionId) {
      const entries = await redis.xrange(keyOf(sessionId), "-", "+");
      return entries.flatMap(([, fields]) => {
        const index = fields.indexOf("line");
        return index === -1 || fields[index + 1] === undefined ? [] : [fields[index + 1] as string];
      });
    },
    async list() {
      const pattern = keyOf("*");
      const [prefix, suffix] = pattern.split("*") as [string, string];
      const ids: string[] = [];
      let cursor = "0";
      do {
        const [found, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 500);
        cursor = found;
        for (const key of keys) ids.push(key.slice(prefix.length, key.length - suffix.length));
      } while (cursor !== "0");
      return ids.sort();
    },
  };
}

/** The environment a worker gives its gyre child so that the child journals to Redis first. */
export function sessionJournalEnv(options: { redisUrl: string; key: string; file: string }): Record<string, string> {
  return {
    GYRE_SESSION_JOURNAL_REDIS: options.redisUrl,
    GYRE_SESSION_JOURNAL_KEY: options.key,
    GYRE_SESSION_JOURNAL_FILE: options.file,
  };
}

/**
 * In a worker's child: the Redis journal for the one session file the worker named, to pass to
 * the session's store. Undefined without `GYRE_SESSION_JOURNAL_KEY`. The connection lives as long as the process.
 */
export async function sessionJournalsFromEnv(env: NodeJS.ProcessEnv): Promise<SessionJournals | undefined> {
  const key = env.GYRE_SESSION_JOURNAL_KEY;
  const url = env.GYRE_SESSION_JOURNAL_REDIS;
  const file = env.GYRE_SESSION_JOURNAL_FILE;
  if (key === undefined || url === undefined || file === undefined) return undefined;
  const { Redis: RedisClass } = await import("ioredis");
  const redis = new RedisClass(url, { maxRetriesPerRequest: null, lazyConnect: false });
  // Reconnects are ioredis's job; an error event without a listener would crash the run.
  redis.on("error", () => {});
  const store = createRedisSessionStore(redis, () => key);
  const journal = { append: (lines: readonly string[]) => store.append(key, lines) };
  const target = nodePath.resolve(file);
  return (path) => (nodePath.resolve(path) === target ? journal : undefined);
}

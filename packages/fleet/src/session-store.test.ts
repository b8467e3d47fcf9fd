import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type SessionJournals, SessionManager } from "gyre/fleet-support";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisServer, requireRedisServer, startRedisServer } from "../../cli/test/helpers/redis-server.js";
import { createFileSessionStore, createRedisSessionStore, sessionJournalsFromEnv } from "./session-store.js";

requireRedisServer();

let root: string;
let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "gyre-store-"));
  server = await startRedisServer(join(root, "redis"));
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

const userMessage = (text: string) => ({ role: "user" as const, content: text, timestamp: Date.now() });

describe("session stores", () => {
  it("keeps lines in order in JSONL files and lists the sessions", async () => {
    const store = createFileSessionStore(join(root, "files"));
    await store.append("a", ['{"n":1}', '{"n":2}']);
    await store.append("a", ['{"n":3}']);
    await store.append("b", ['{"n":9}']);
    expect(await store.readAll("a")).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
    expect(await store.readAll("missing")).toEqual([]);
    expect((await store.list()).sort()).toEqual(["a", "b"]);
  });

  it("keeps lines in order in one Redis Stream per session and lists the sessions", async () => {
    const store = createRedisSessionStore(redis, (id) => `test:journal:${id}`);
    await store.append("x", ["one", "two"]);
    await store.append("y", ["other"]);
    await store.append("x", ["three"]);
    expect(await store.readAll("x")).toEqual(["one", "two", "three"]);
    expect(await redis.xlen("test:journal:x")).toBe(3);
    expect(await store.list()).toEqual(["x", "y"]);
  });

  it("stores a line once when a lost reply makes the client send it again, and refuses another writer's line in its place", async () => {
    const store = createRedisSessionStore(redis, (id) => `test:journal:${id}`);
    await store.append("resend", ["one"]);
    // The first send of "two" reached Redis; its reply was lost and ioredis sends it again.
    await redis.xadd("test:journal:resend", "0-2", "line", "two");
    await store.append("resend", ["two"]);
    expect(await store.readAll("resend")).toEqual(["one", "two"]);
    await redis.xadd("test:journal:resend", "0-3", "line", "someone else");
    await expect(store.append("resend", ["three"])).rejects.toThrow(/did not store the journal line 0-3/);
    expect(await store.readAll("resend")).toEqual(["one", "two", "someone else"]);
  });

  it("journals each line of a worker's session file to Redis before the file, once each", async () => {
    const file = join(root, "job.jsonl");
    const header = { type: "session", version: 1, id: "job-1", timestamp: new Date().toISOString(), cwd: root };
    await writeFile(file, `${JSON.stringify(header)}\n`);
    const journals = await sessionJournalsFromEnv({
      GYRE_SESSION_JOURNAL_REDIS: server.url,
      GYRE_SESSION_JOURNAL_KEY: "test:journal:live",
      GYRE_SESSION_JOURNAL_FILE: file,
    });
    const session = await SessionManager.open(file, journals ? { journals } : {});
    session.appendMessage(userMessage("first"));
    session.appendMessage(userMessage("second"));
    await session.flush();
    const journal = await createRedisSessionStore(redis, (id) => id).readAll("test:journal:live");
    expect(journal.map((line) => JSON.parse(line).message.content)).toEqual(["first", "second"]);
    expect((await readFile(file, "utf8")).trim().split("\n").slice(1)).toEqual(journal);
    await session.close();
    const other = SessionManager.create({
      sessionsDir: join(root, "plain"),
      cwd: root,
      ...(journals ? { journals } : {}),
    });
    other.appendMessage(userMessage("not journaled"));
    await other.close();
    expect(await redis.xlen("test:journal:live")).toBe(2);
  });

  it("fails the flush and keeps the lines when the journal refuses them, then journals them once it works", async () => {
    const sessionsDir = join(root, "refusing");
    const accepted: string[] = [];
    let refuse = true;
    const journals: SessionJournals = (path) =>
      path.startsWith(sessionsDir)
        ? {
            append: async (lines) => {
              if (refuse) throw new Error("Redis is down");
              accepted.push(...lines);
            },
          }
        : undefined;
    const session = SessionManager.create({ sessionsDir, cwd: root, journals });
    session.appendMessage(userMessage("kept"));
    await expect(session.flush()).rejects.toThrow(/Redis is down/);
    await expect(readFile(session.path as string, "utf8")).resolves.toBe("");
    refuse = false;
    await session.flush();
    const file = (await readFile(session.path as string, "utf8")).trim().split("\n");
    expect(file).toHaveLength(2);
    expect(accepted).toEqual(file);
    await session.close();
  });
});

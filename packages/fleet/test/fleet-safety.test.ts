/**
 * A fleet job may only narrow its worker's policy (docs/design/safety.md#protected-paths–F5), against a real redis-server, real
 * workers and real bubblewrap: a job's check cannot read the worker's key, nothing in Redis holds
 * it, jobs work only under the worker's allowed roots, poisoned payloads fail once with a sentence,
 * and a job whose data Redis lost is reported with its session file.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, stat, symlink } from "node:fs/promises";
import { join } from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../../cli/test/helpers/fake-model-server.mjs";
import { type RedisServer, requireRedisServer, startRedisServer } from "../../cli/test/helpers/redis-server.js";
import { cliEnv, gyreBin } from "../../cli/test/helpers/run-cli.js";
import { createFleetClient, type FleetClient, type JobInfo } from "../src/fleet-client.js";
import { createWorkerPool, journalOf, waitFor, workspace } from "./fleet-harness.js";

requireRedisServer();

const KEY = "sk-audit-SECRET-7f3c9a1b2d4e6f80aa";
let root: string;
let redis: RedisServer;
let server: FakeModelServer;
const pool = createWorkerPool(() => redis.url);

beforeAll(async () => {
  // Under /var/tmp: the sandbox's /tmp is private, and jobs' folders must be visible inside it.
  root = await mkdtemp(join("/var/tmp", "gyre-fleet-safety-"));
  redis = await startRedisServer(join(root, "redis"));
  server = await startFakeModelServer({
    respond: ({ body }) => {
      const tools = (body.messages ?? []).filter((message) => message.role === "tool");
      const prompt = JSON.stringify(body.messages?.find((message) => message.role === "user")?.content ?? "");
      if (prompt.includes("slow") && tools.length === 0)
        return { toolCalls: [{ name: "bash", arguments: { command: "sleep 4; echo slept" } }] };
      // A model that repeats a key it somehow saw: the answer must still reach Redis redacted.
      return { text: `done (${prompt.length} chars) ${KEY}` };
    },
  });
});

afterAll(async () => {
  pool.killAll();
  await server?.close();
  await redis?.stop();
  await rm(root, { recursive: true, force: true });
});

const workerEnv = () => ({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${server.url}/v1` });
const job = (prompt: string, extra: Record<string, unknown>) => ({
  prompt,
  provider: "openai",
  model: "gpt-4o",
  tools: ["bash"],
  ...extra,
});

async function finished(client: FleetClient, id: string, timeoutMs = 60_000): Promise<JobInfo> {
  return waitFor(
    async () => {
      const found = await client.get(id);
      return found?.state === "completed" || found?.state === "failed" ? found : undefined;
    },
    timeoutMs,
    `job ${id}`,
  );
}

/** Every value held in Redis, whatever its type, as one string. */
async function everythingIn(url: string): Promise<string> {
  const client = new Redis(url);
  try {
    const parts: string[] = [];
    for (const key of await client.keys("*")) {
      const type = await client.type(key);
      if (type === "string") parts.push((await client.get(key)) ?? "");
      else if (type === "hash") parts.push(JSON.stringify(await client.hgetall(key)));
      else if (type === "stream") parts.push(JSON.stringify(await client.xrange(key, "-", "+")));
      else if (type === "list") parts.push(JSON.stringify(await client.lrange(key, 0, -1)));
      else if (type === "zset") parts.push(JSON.stringify(await client.zrange(key, 0, -1)));
      else if (type === "set") parts.push(JSON.stringify(await client.smembers(key)));
    }
    return parts.join("\n");
  } finally {
    client.disconnect();
  }
}

describe("a fleet job and its worker's policy", () => {
  it("runs check in the job's sandbox with bash's environment, and no Redis key holds the worker's key (F5)", async () => {
    const { cwd, home } = await workspace(root, "check");
    const queue = "check";
    await pool.start(home, ["--queue", queue, "--allow-root", root], workerEnv());
    const client = await createFleetClient({ redisUrl: redis.url, queue });
    try {
      const check =
        "echo count=$(env | grep -c OPENAI_API_KEY); tr '\\0' '\\n' < /proc/$PPID/environ | grep OPENAI; " +
        `touch /etc/f5-probe || echo etc-refused; touch ${home}/outside || echo home-refused; echo end`;
      const id = await client.submit(job("say done", { cwd, check }));
      const done = await finished(client, id);
      expect(done.state).toBe("completed");
      const output = String((done.result?.check as { output?: string } | undefined)?.output);
      expect(output).toContain("count=0");
      expect(output).toContain("etc-refused");
      expect(output).toContain("home-refused");
      expect(output).toContain("end");
      expect(done.result?.text).toContain("[REDACTED]");
      await expect(stat("/etc/f5-probe")).rejects.toThrow();
      const stored = await everythingIn(redis.url);
      expect(stored).toContain("count=0");
      expect(stored).not.toContain(KEY);
      expect(stored).not.toContain(KEY.slice(0, 20));
    } finally {
      await client.close();
    }
  }, 120_000);

  it("refuses sandbox off, mcpConfig and fauxScript unless the worker allows each, once and with a sentence (F5)", async () => {
    const { cwd, home } = await workspace(root, "narrow");
    const queue = "narrow";
    await pool.start(home, ["--queue", queue, "--allow-root", root], workerEnv());
    const client = await createFleetClient({ redisUrl: redis.url, queue });
    try {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ sandbox: "off" }, /sandbox "off".*--allow-sandbox-off/],
        [{ mcpConfig: join(cwd, "mcp.json") }, /mcpConfig.*--allow-mcp-config/],
        [{ fauxScript: join(cwd, "s.json"), provider: "faux" }, /fauxScript.*--allow-faux-script/],
      ];
      for (const [extra, reason] of cases) {
        const done = await finished(client, await client.submit(job("x", { cwd, ...extra })));
        expect(done.state).toBe("failed");
        expect(done.failedReason).toMatch(reason);
        expect(done.attempts).toBe(1);
      }
    } finally {
      await client.close();
    }
  }, 120_000);

  it("works only under --allow-root: system folders, other folders and symlinks out are refused, unretried (F4)", async () => {
    const { home } = await workspace(root, "roots");
    const allowed = join(root, "roots", "allowed");
    const other = join(root, "roots", "other");
    await mkdir(join(allowed, "proj"), { recursive: true });
    await mkdir(other, { recursive: true });
    await symlink(other, join(allowed, "escape"));
    const queue = "roots";
    await pool.start(home, ["--queue", queue, "--allow-root", allowed], workerEnv());
    const client = await createFleetClient({ redisUrl: redis.url, queue });
    try {
      const cases: Array<[string, RegExp]> = [
        ["/etc", /\/etc is a system folder/],
        ["/", /\/ holds far more than one project/],
        [home, /worker's home folder/],
        [other, new RegExp(`outside this worker's allowed roots \\(${allowed}\\)`)],
        [join(allowed, "escape"), new RegExp(`${other} is outside this worker's allowed roots \\(${allowed}\\)`)],
      ];
      for (const [cwd, reason] of cases) {
        const done = await finished(client, await client.submit(job("x", { cwd })));
        expect(done.state, cwd).toBe("failed");
        expect(done.failedReason, cwd).toMatch(reason);
        expect(done.attempts, cwd).toBe(1);
      }
      const good = await finished(client, await client.submit(job("x", { cwd: join(allowed, "proj") })));
      expect(good.state).toBe("completed");
    } finally {
      await client.close();
    }
    const noRoots = "noroots";
    await pool.start(home, ["--queue", noRoots], workerEnv());
    const second = await createFleetClient({ redisUrl: redis.url, queue: noRoots });
    try {
      const done = await finished(second, await second.submit(job("x", { cwd: join(allowed, "proj") })));
      expect(done.failedReason).toMatch(/takes no cwd jobs \(start it with --allow-root DIR/);
    } finally {
      await second.close();
    }
  }, 180_000);

  it("refuses a worker whose --allow-root is / or the home folder", async () => {
    const { home } = await workspace(root, "badroot");
    for (const bad of ["/", home, "/usr/lib"]) {
      const child = spawn(process.execPath, [gyreBin, "worker", "--redis", redis.url, "--allow-root", bad], {
        env: cliEnv(home),
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const code = await new Promise((done) => child.once("exit", done));
      expect(code, bad).toBe(2);
      expect(stderr, bad).toMatch(/--allow-root .* is refused: .*; name the projects' own folder instead/);
    }
  });

  it("passes a long prompt by stdin, refuses one over the bound and nested secret keys, unretried (F3)", async () => {
    const { cwd, home } = await workspace(root, "poison");
    const queue = "poison";
    await pool.start(home, ["--queue", queue, "--allow-root", root], workerEnv());
    const client = await createFleetClient({ redisUrl: redis.url, queue });
    const raw = new Queue(queue, { connection: { url: redis.url } });
    try {
      const long = `${"x".repeat(600_000)} end`;
      const ok = await finished(client, await client.submit(job(long, { cwd, tools: [] })));
      expect(ok.state).toBe("completed");
      const { messages } = await journalOf(client, ok.id);
      expect(messages[0]?.content).toBe(long);
      const poisons: Array<[Record<string, unknown>, RegExp]> = [
        [job("y".repeat(2 * 1024 * 1024), { cwd }), /over the 1048576-byte limit/],
        [
          job("x", { git: { url: "https://example.invalid/r.git", token: "t0ken" } }),
          /"git\.token".*keys never travel/,
        ],
        [job("x", { git: { url: "https://bot:pw@example.invalid/r.git" } }), /git url carries a password/],
      ];
      for (const [payload, reason] of poisons) {
        const added = await raw.add("gyre", payload, { attempts: 3 });
        const done = await finished(client, added.id as string);
        expect(done.state).toBe("failed");
        expect(done.failedReason).toMatch(reason);
        expect(done.attempts).toBe(1);
      }
    } finally {
      await raw.close();
      await client.close();
    }
  }, 120_000);

  it("says a job was lost when Redis comes back empty mid-run, naming its session file (F2)", async () => {
    const { cwd, home } = await workspace(root, "lost");
    const lostRedis = await startRedisServer(join(root, "lost-redis"));
    const lostPool = createWorkerPool(() => lostRedis.url);
    const worker = await lostPool.start(home, ["--queue", "lost", "--allow-root", root], workerEnv());
    let log = "";
    worker.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString();
    });
    const client = await createFleetClient({ redisUrl: lostRedis.url, queue: "lost" });
    try {
      const id = await client.submit(job("slow job", { cwd }));
      await waitFor(async () => ((await client.get(id))?.state === "active" ? true : undefined), 30_000, "the start");
      await waitFor(
        async () => ((await client.sessionJsonl(id)).includes('"toolCall"') ? true : undefined),
        30_000,
        "the tool call",
      );
      await lostRedis.stop();
      for (const name of await readdir(join(root, "lost-redis")))
        await rm(join(root, "lost-redis", name), { recursive: true, force: true });
      await lostRedis.start();
      const file = join(home, "fleet", "sessions", `lost-${id}.jsonl`);
      await waitFor(async () => (log.includes(`job ${id} lost`) ? true : undefined), 60_000, "the lost-job line");
      expect(log).toContain(`job ${id} lost: Redis lost its data`);
      expect(log).toContain(`its session is kept in ${file}`);
      expect((await stat(file)).size).toBeGreaterThan(0);
    } finally {
      await client.close();
      lostPool.killAll();
      await lostRedis.stop();
    }
  }, 120_000);
});

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFleetClient, type FleetClient } from "../../src/fleet/fleet-client.js";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, gyreBin } from "../helpers/run-cli.js";

if (spawnSync("redis-server", ["--version"]).status !== 0) {
  throw new Error("The fleet tests need redis-server on PATH (apt-get install -y redis-server; .ci/run installs it).");
}

let root: string;
let redisUrl: string;
let redis: ChildProcess;
const workers: ChildProcess[] = [];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "yes"],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("Ready to accept connections")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  return child;
}

/** Starts `gyre worker` as its own process; resolves once it says it is ready. */
async function startWorker(home: string, args: string[] = [], env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, [gyreBin, "worker", "--redis", redisUrl, ...args], {
    env: cliEnv(home, env),
    stdio: ["ignore", "ignore", "pipe"],
  });
  workers.push(child);
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes("ready on queue")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`worker exited with ${code}: ${seen}`)));
  });
  return child;
}

async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Timed out waiting for ${what}.`);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "gyre-fleet-"));
  const port = await freePort();
  await mkdir(join(root, "redis"));
  redis = await startRedis(port, join(root, "redis"));
  redisUrl = `redis://127.0.0.1:${port}`;
});

afterAll(async () => {
  for (const worker of workers) worker.kill("SIGKILL");
  redis?.kill("SIGKILL");
});

async function workspace(name: string): Promise<{ cwd: string; home: string }> {
  const cwd = join(root, name, "project");
  const home = join(root, name, "home");
  await mkdir(cwd, { recursive: true });
  await mkdir(home, { recursive: true });
  return { cwd, home };
}

describe("fleet on a real redis-server", () => {
  it("drains 60 jobs with 3 workers of concurrency 4, none lost and none run twice", async () => {
    const { cwd, home } = await workspace("drain");
    const script = join(home, "script.json");
    await writeFile(script, JSON.stringify([{ content: [{ type: "text", text: "done" }] }]));
    const queue = "drain";
    await Promise.all([0, 1, 2].map(() => startWorker(home, ["--queue", queue, "--concurrency", "4"])));
    const client = await createFleetClient({ redisUrl, queue });
    try {
      const ids = await Promise.all(
        Array.from({ length: 60 }, (_, n) =>
          client.submit({ prompt: `job ${n}`, cwd, provider: "faux", fauxScript: script }),
        ),
      );
      const finished = await waitFor(
        async () => {
          const jobs = await Promise.all(ids.map((id) => client.get(id)));
          return jobs.every((job) => job?.state === "completed" || job?.state === "failed") ? jobs : undefined;
        },
        240_000,
        "60 jobs",
      );
      expect(finished.map((job) => job?.state)).toEqual(ids.map(() => "completed"));
      expect(finished.map((job) => job?.result?.text)).toEqual(ids.map(() => "done"));
      expect(finished.every((job) => job?.attempts === 1)).toBe(true);
      for (const id of ids.slice(0, 10)) {
        const journal = (await client.sessionJsonl(id))
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line));
        expect(journal[0]?.type).toBe("session");
        expect(journal.filter((entry) => entry.type === "message" && entry.message.role === "assistant")).toHaveLength(
          1,
        );
      }
    } finally {
      await client.close();
    }
  }, 300_000);

  it("resumes a job whose worker was killed -9 mid-tool on another worker, without re-running the tool or answering twice", async () => {
    const { cwd, home } = await workspace("kill");
    const marker = join(cwd, "marker.txt");
    const server: FakeModelServer = await startFakeModelServer({
      respond: ({ body }) => {
        const results = (body.messages ?? []).filter((message) => message.role === "tool");
        if (results.length === 0) {
          return {
            toolCalls: [{ name: "bash", arguments: { command: `echo run >> ${marker}; sleep 20; echo slept` } }],
          };
        }
        return { text: `finished after: ${JSON.stringify(results.at(-1)?.content).slice(0, 80)}` };
      },
    });
    const env = { OPENAI_API_KEY: "sk-worker-held-key-0000000000", OPENAI_BASE_URL: `${server.url}/v1` };
    const queue = "kill";
    const first = await startWorker(home, ["--queue", queue, "--lock-ms", "2000"], env);
    const client = await createFleetClient({ redisUrl, queue });
    try {
      const id = await client.submit({
        prompt: "run the slow step",
        cwd,
        provider: "openai",
        model: "gpt-4o",
        tools: ["bash"],
      });
      await waitFor(
        async () => ((await readFile(marker, "utf8").catch(() => "")).includes("run") ? true : undefined),
        60_000,
        "the tool to start",
      );
      // The journal is mirrored to Redis as the session file grows (every 100 ms): the takeover
      // guarantee holds from the moment the call is in it (the window before is a known gap).
      await waitFor(
        async () => ((await client.sessionJsonl(id)).includes('"toolCall"') ? true : undefined),
        10_000,
        "the call in the journal",
      );
      first.kill("SIGKILL");
      await startWorker(home, ["--queue", queue, "--lock-ms", "2000"], env);
      const job = await waitFor(
        async () => {
          const found = await client.get(id);
          return found?.state === "completed" || found?.state === "failed" ? found : undefined;
        },
        90_000,
        "the job to finish on the second worker",
      );
      expect(job.state).toBe("completed");
      expect(job.result?.text).toMatch(/^finished after: .*interrupted/);
      expect((await readFile(marker, "utf8")).trim().split("\n")).toEqual(["run"]);
      const journal = (await client.sessionJsonl(id))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      const messages = journal.filter((entry) => entry.type === "message").map((entry) => entry.message);
      const answers = messages.filter((message) => message.role === "assistant" && message.stopReason === "stop");
      expect(answers).toHaveLength(1);
      expect(messages.filter((message) => message.role === "toolResult")).toHaveLength(1);
      expect(JSON.stringify(journal)).not.toContain("sk-worker-held-key");
    } finally {
      await client.close();
      await server.close();
    }
  }, 180_000);

  it("cancels a job mid-tool, and fails a poisoned job clearly without blocking the queue", async () => {
    const { cwd, home } = await workspace("cancel");
    const server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0 ? { toolCalls: [{ name: "bash", arguments: { command: "sleep 60" } }] } : { text: "ok" },
    });
    const env = { OPENAI_API_KEY: "sk-x-0000000000000000000", OPENAI_BASE_URL: `${server.url}/v1` };
    const queue = "cancel";
    await startWorker(home, ["--queue", queue], env);
    const client = await createFleetClient({ redisUrl, queue });
    const raw = new Queue(queue, { connection: { url: redisUrl } });
    try {
      const id = await client.submit({ prompt: "sleep", cwd, provider: "openai", model: "gpt-4o", tools: ["bash"] });
      const events = client.follow(id);
      for await (const event of events) if (event.type === "tool_execution_start") break;
      const cancelledAt = Date.now();
      await client.cancel(id);
      const cancelled = await waitFor(
        async () => {
          const job = await client.get(id);
          return job?.state === "failed" ? job : undefined;
        },
        30_000,
        "the cancel",
      );
      expect(cancelled.failedReason).toBe("The job was cancelled.");
      expect(Date.now() - cancelledAt).toBeLessThan(15_000);

      const poisoned = await raw.add("gyre", { prompt: "x", cwd, apiKey: "sk-should-not-travel" }, { attempts: 3 });
      const good = await client.submit({ prompt: "hi", cwd, provider: "openai", model: "gpt-4o", tools: [] });
      const bad = await waitFor(
        async () => {
          const job = await client.get(poisoned.id as string);
          return job?.state === "failed" ? job : undefined;
        },
        30_000,
        "the poisoned job",
      );
      expect(bad.failedReason).toMatch(/keys never travel in jobs/);
      expect(bad.attempts).toBe(1);
      const after = await waitFor(
        async () => {
          const job = await client.get(good);
          return job?.state === "completed" ? job : undefined;
        },
        60_000,
        "the job after the poisoned one",
      );
      expect(after.result?.text).toBe("ok");
      await expect(client.submit({ prompt: "x", cwd: "relative" } as never)).rejects.toThrow(/absolute path/);
    } finally {
      await raw.close();
      await client.close();
      await server.close();
    }
  }, 120_000);
});

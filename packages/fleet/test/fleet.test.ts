import type { ChildProcess } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../../cli/test/helpers/fake-model-server.mjs";
import { type RedisServer, requireRedisServer, startRedisServer } from "../../cli/test/helpers/redis-server.js";
import { createFleetClient, type FleetClient } from "../src/fleet-client.js";
import { createWorkerPool, journalOf, workspace as makeWorkspace, waitFor, waitForJobs } from "./fleet-harness.js";

requireRedisServer();

let root: string;
let redis: RedisServer;
let redisUrl: string;
const pool = createWorkerPool(() => redisUrl);
const startWorker = pool.start;
const workspace = (name: string) => makeWorkspace(root, name);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "gyre-fleet-"));
  redis = await startRedisServer(join(root, "redis"));
  redisUrl = redis.url;
});

afterAll(async () => {
  pool.killAll();
  await redis?.stop();
});

/** A job on the fake OpenAI server's "gpt-4o" with the bash tool only. */
const submitBashJob = (client: FleetClient, prompt: string, cwd: string) =>
  client.submit({ prompt, cwd, provider: "openai", model: "gpt-4o", tools: ["bash"] });

describe("fleet on a real redis-server", () => {
  it("drains 100 jobs with 3 workers of concurrency 4, none lost and none run twice", async () => {
    const { cwd, home } = await workspace("drain");
    const script = join(home, "script.json");
    await writeFile(script, JSON.stringify([{ content: [{ type: "text", text: "done" }] }]));
    const queue = "drain";
    await Promise.all(
      [0, 1, 2].map(() =>
        startWorker(home, ["--allow-root", root, "--allow-faux-script", "--queue", queue, "--concurrency", "4"]),
      ),
    );
    const client = await createFleetClient({ redisUrl, queue });
    try {
      const ids = await Promise.all(
        Array.from({ length: 100 }, (_, n) =>
          client.submit({ prompt: `job ${n}`, cwd, provider: "faux", fauxScript: script }),
        ),
      );
      expect(new Set(ids).size).toBe(100);
      const finished = await waitForJobs(client, ids, 400_000);
      expect(finished.map((job) => job?.state)).toEqual(ids.map(() => "completed"));
      expect(finished.map((job) => job?.result?.text)).toEqual(ids.map(() => "done"));
      expect(finished.every((job) => job?.attempts === 1)).toBe(true);
      for (const [n, id] of ids.entries()) {
        const { entries, messages, answers } = await journalOf(client, id);
        expect(entries[0]?.type).toBe("session");
        expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
        expect(messages[0]?.content).toBe(`job ${n}`);
        expect(answers).toHaveLength(1);
      }
    } finally {
      await client.close();
    }
  }, 450_000);

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
    const first = await startWorker(
      home,
      ["--allow-root", root, "--allow-faux-script", "--queue", queue, "--lock-ms", "2000"],
      env,
    );
    const client = await createFleetClient({ redisUrl, queue });
    try {
      const id = await submitBashJob(client, "run the slow step", cwd);
      await waitFor(
        async () => ((await readFile(marker, "utf8").catch(() => "")).includes("run") ? true : undefined),
        60_000,
        "the tool to start",
      );
      // The child journals the call to Redis before the tool may run: it is there already.
      expect(await client.sessionJsonl(id)).toContain('"toolCall"');
      first.kill("SIGKILL");
      await startWorker(
        home,
        ["--allow-root", root, "--allow-faux-script", "--queue", queue, "--lock-ms", "2000"],
        env,
      );
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

  it("resumes a job whose worker was killed -9 right after a tool result was written, with no re-run and one answer", async () => {
    const { cwd, home } = await workspace("after-result");
    const marker = join(cwd, "runs.txt");
    const queue = "after-result";
    const client = await createFleetClient({ redisUrl, queue });
    let first: ChildProcess | undefined;
    let journalAtKill = "";
    let afterResult = 0;
    const server: FakeModelServer = await startFakeModelServer({
      respond: async ({ body }) => {
        const results = (body.messages ?? []).filter((message) => message.role === "tool");
        if (results.length === 0)
          return { toolCalls: [{ name: "bash", arguments: { command: `echo run >> ${marker}; echo counted` } }] };
        afterResult++;
        if (afterResult > 1) return { text: "answered once" };
        // The next model call has begun: the tool result must be in Redis by now. Kill at once.
        journalAtKill = await client.sessionJsonl("1");
        first?.kill("SIGKILL");
        // No reply reaches the dying run (a "hang" reply would still stream its stop).
        await new Promise((resolve) => setTimeout(resolve, 15_000));
        return { status: 503, error: "too late" };
      },
    });
    const env = { OPENAI_API_KEY: "sk-worker-held-key-0000000000", OPENAI_BASE_URL: `${server.url}/v1` };
    first = await startWorker(
      home,
      ["--allow-root", root, "--allow-faux-script", "--queue", queue, "--lock-ms", "2000"],
      env,
    );
    try {
      const id = await submitBashJob(client, "count once", cwd);
      expect(id).toBe("1");
      await waitFor(async () => (first?.exitCode !== null || first?.signalCode ? true : undefined), 60_000, "the kill");
      expect(journalAtKill).toContain('"role":"toolResult"');
      expect(journalAtKill).toContain("counted");
      await startWorker(
        home,
        ["--allow-root", root, "--allow-faux-script", "--queue", queue, "--lock-ms", "2000"],
        env,
      );
      const [job] = await waitForJobs(client, [id], 90_000);
      expect(job?.state).toBe("completed");
      expect(job?.result?.text).toBe("answered once");
      expect((await readFile(marker, "utf8")).trim().split("\n")).toEqual(["run"]);
      const { messages, answers } = await journalOf(client, id);
      const results = messages.filter((message) => message.role === "toolResult");
      expect(results).toHaveLength(1);
      expect(JSON.stringify(results[0])).not.toContain("interrupted");
      expect(answers).toHaveLength(1);
      expect(server.requests.filter((request) => JSON.stringify(request.body).includes('"tool_calls"')).length).toBe(2);
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
    await startWorker(home, ["--allow-root", root, "--allow-faux-script", "--queue", queue], env);
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

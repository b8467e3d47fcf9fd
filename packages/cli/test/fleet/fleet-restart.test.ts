import { mkdir, mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFleetClient } from "../../src/fleet/fleet-client.js";
import { startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { createWorkerPool, journalOf, waitFor, waitForJobs, workspace } from "./fleet-harness.js";
import { type RedisServer, requireRedisServer, startRedisServer } from "./redis-server.js";

requireRedisServer();

let root: string;
let redis: RedisServer;
const pool = createWorkerPool(() => redis.url);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "gyre-fleet-restart-"));
  redis = await startRedisServer(join(root, "redis"));
});

afterAll(async () => {
  pool.killAll();
  await redis?.stop();
});

function promptText(body: { messages?: { role: string; content: unknown }[] }): string {
  const first = body.messages?.find((message) => message.role === "user");
  return typeof first?.content === "string" ? first.content : JSON.stringify(first?.content ?? "");
}

describe("fleet across a Redis restart", () => {
  it("finishes every job after redis-server is stopped and started again mid-run, none lost and none run twice", async () => {
    const { cwd, home } = await workspace(root, "restart");
    // One folder per job: concurrent sandboxed commands in one folder race on the mount point
    // the sandbox creates for .gyre (reported to the sandbox's owners); not what this test is about.
    const folderOf = (n: number | string) => join(cwd, `job-${n}`);
    const server = await startFakeModelServer({
      respond: ({ body }) => {
        const job = /job (\d+)/.exec(promptText(body))?.[1] ?? "?";
        const answered = (body.messages ?? []).some((message) => message.role === "tool");
        if (!answered) return { toolCalls: [{ name: "bash", arguments: { command: `echo ${job} >> runs.txt` } }] };
        return { text: `done ${job}`, chunkSize: 2, delayMs: 60 };
      },
    });
    const env = { OPENAI_API_KEY: "sk-restart-0000000000000000", OPENAI_BASE_URL: `${server.url}/v1` };
    const queue = "restart";
    await Promise.all([0, 1].map(() => pool.start(home, ["--queue", queue, "--concurrency", "4"], env)));
    const client = await createFleetClient({ redisUrl: redis.url, queue });
    try {
      const count = 24;
      await Promise.all(Array.from({ length: count }, (_, n) => mkdir(folderOf(n))));
      const ids = await Promise.all(
        Array.from({ length: count }, (_, n) =>
          client.submit({ prompt: `job ${n}`, cwd: folderOf(n), provider: "openai", model: "gpt-4o", tools: ["bash"] }),
        ),
      );
      const ranSoFar = async () =>
        (await Promise.all(ids.map((_, n) => readFile(join(folderOf(n), "runs.txt"), "utf8").catch(() => "")))).join(
          "",
        );
      await waitFor(
        async () => ((await ranSoFar()).split("\n").length > 4 ? true : undefined),
        120_000,
        "the first jobs to run their tool",
      );
      await redis.stop();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await redis.start();
      const finished = await waitForJobs(client, ids, 240_000);
      expect(finished.map((job) => job?.state)).toEqual(ids.map(() => "completed"));
      expect(finished.map((job) => job?.result?.text)).toEqual(ids.map((_, n) => `done ${n}`));
      // One summary per job, so a failure names the job and what its journal holds.
      const summaries = await Promise.all(
        ids.map(async (id, n) => {
          const { messages, answers } = await journalOf(client, id);
          const results = messages.filter((message) => message.role === "toolResult");
          return { n, attempts: finished[n]?.attempts, answers: answers.length, results: JSON.stringify(results) };
        }),
      );
      for (const summary of summaries) {
        expect(summary.answers, summary.results).toBe(1);
        expect(JSON.parse(summary.results), summary.results).toHaveLength(1);
        expect(summary.results).toContain('"isError":false');
      }
      const ran = (await ranSoFar()).trim().split("\n").map(Number);
      expect(
        ran.sort((a, b) => a - b),
        JSON.stringify(summaries),
      ).toEqual(ids.map((_, n) => n));
    } finally {
      await client.close();
      await server.close();
    }
  }, 400_000);
});

import { mkdir, mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeModelServer } from "../../cli/test/helpers/fake-model-server.mjs";
import { type RedisServer, requireRedisServer, startRedisServer } from "../../cli/test/helpers/redis-server.js";
import { createEventDeduper } from "../src/event-stream.js";
import { createFleetClient } from "../src/fleet-client.js";
import { fleetKeys } from "../src/fleet-keys.js";
import { createWorkerPool, journalOf, waitFor, waitForJobs, workspace } from "./fleet-harness.js";

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
    await Promise.all(
      [0, 1].map(() =>
        pool.start(home, ["--allow-root", root, "--allow-faux-script", "--queue", queue, "--concurrency", "4"], env),
      ),
    );
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

  it("shows every event of a followed job once, in order, when redis-server restarts mid-follow and an entry is stored twice", async () => {
    const { cwd, home } = await workspace(root, "follow");
    const server = await startFakeModelServer({
      respond: ({ body }) => {
        const answered = (body.messages ?? []).some((message) => message.role === "tool");
        if (!answered) return { toolCalls: [{ name: "bash", arguments: { command: "sleep 4; echo slept" } }] };
        return { text: "the answer comes in many small pieces after the restart", chunkSize: 2, delayMs: 40 };
      },
    });
    const env = { OPENAI_API_KEY: "sk-follow-00000000000000000", OPENAI_BASE_URL: `${server.url}/v1` };
    const queue = "follow";
    await pool.start(home, ["--allow-root", root, "--allow-faux-script", "--queue", queue], env);
    const client = await createFleetClient({ redisUrl: redis.url, queue });
    const key = fleetKeys.events(queue, "1");
    try {
      const id = await client.submit({ prompt: "job", cwd, provider: "openai", model: "gpt-4o", tools: ["bash"] });
      expect(id).toBe("1");
      const followed: Record<string, unknown>[] = [];
      let toolStarted: () => void = () => {};
      const started = new Promise<void>((resolve) => {
        toolStarted = resolve;
      });
      const following = (async () => {
        for await (const event of client.follow(id)) {
          followed.push(event);
          if (event.type === "tool_execution_start") toolStarted();
        }
      })();
      await started;
      await redis.stop();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await redis.start();
      // What ioredis does when an XADD's reply is lost in an outage: it sends it again, and the
      // stream holds the line twice under two Redis ids. Done by hand here, so it surely happens.
      const direct = new Redis(redis.url);
      try {
        // The tool still sleeps: the follower is live when the duplicate lands.
        expect(followed.some((event) => event.type === "tool_execution_end")).toBe(false);
        const [[, fields] = ["", []]] = await direct.xrevrange(key, "+", "-", "COUNT", 1);
        await direct.xadd(key, "*", ...fields);
        await following;
        const stored = await direct.xrange(key, "-", "+");
        const distinct = createEventDeduper();
        const expected = stored.flatMap(([, entry]) => {
          const event = distinct.accept(entry);
          return event === undefined ? [] : [event];
        });
        expect(stored.length).toBeGreaterThan(expected.length);
        expect(followed).toEqual(expected);
        expect(followed.filter((event) => event.type === "result")).toHaveLength(1);
        expect(followed.at(-1)).toMatchObject({ type: "result", reason: "stop" });
        // Events on both sides of the restart arrived: the follower resumed, it did not stop.
        expect(followed.filter((event) => event.type === "tool_execution_end")).toHaveLength(1);
      } finally {
        direct.disconnect();
      }
    } finally {
      await client.close();
      await server.close();
    }
  }, 240_000);
});

/**
 * Slow layer (`*.slow.test.ts`): a fleet stress test. Many jobs (GYRE_STRESS_JOBS,
 * default 36) on three real workers over a real redis-server, while workers are killed with
 * SIGKILL at random moments and replaced. Every job must complete with its own answer, its journal
 * must hold exactly one final answer and at most one tool result, and its tool must have run once,
 * or never when its call was interrupted (at most once: a journalled call whose worker died before
 * it ran gets the "interrupted" result). A job is read only once its state is final, and read
 * again then, so a probe never pairs a final state with data from before it.
 */
import type { ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../../cli/test/helpers/fake-model-server.mjs";
import { type RedisServer, requireRedisServer, startRedisServer } from "../../cli/test/helpers/redis-server.js";
import { createFleetClient, type FleetClient } from "../src/fleet-client.js";
import { createWorkerPool, journalOf, waitFor, waitForJobs, workspace } from "./fleet-harness.js";

// It found one defect so far: a worker killed after the run's first journal line but before its
// prompt left a journal that resumed as "continue the task" with no task (answer "answer-?", seed
// 61350); run-job.ts's holdsPrompt fixes it. `npm run test:stress` runs 600 jobs.
requireRedisServer();

// Each kill cuts up to nine jobs mid-run (three workers of concurrency 3); the 100-job drain
// without kills is fleet.test.ts's. What a kill tests is the jobs it cuts, so the default is
// four waves of nine: more jobs only add ones that run between kills (60 cost 16 s more of CPU).
// The kills follow the drain's progress, not the clock: on a fast machine the last timed one fell
// after the drain had ended, and the test then proved nothing about it.
const JOBS = Number(process.env.GYRE_STRESS_JOBS ?? 36);
const KILLS = 4;
let root: string;
let redis: RedisServer;
let server: FakeModelServer;
const pool = createWorkerPool(() => redis.url);

beforeAll(async () => {
  root = await mkdtemp(join("/var/tmp", "gyre-fleet-stress-"));
  redis = await startRedisServer(join(root, "redis"));
  server = await startFakeModelServer({
    respond: ({ body }) => {
      const first = body.messages?.find((message) => message.role === "user")?.content;
      const tag = /tag-(\d+)/.exec(typeof first === "string" ? first : JSON.stringify(first))?.[1] ?? "?";
      const answered = (body.messages ?? []).some((message) => message.role === "tool");
      if (!answered) return { toolCalls: [{ name: "bash", arguments: { command: `echo run-${tag} >> runs.txt` } }] };
      return { text: `answer-${tag}` };
    },
  });
});

afterAll(async () => {
  pool.killAll();
  await server?.close();
  await redis?.stop();
  await rm(root, { recursive: true, force: true });
});

/** Waits until at least `count` of `ids` have completed, and returns how many have. */
function untilCompleted(client: FleetClient, ids: readonly string[], count: number): Promise<number> {
  return waitFor(
    async () => {
      const jobs = await Promise.all(ids.map((id) => client.get(id)));
      const done = jobs.filter((job) => job?.state === "completed").length;
      return done >= count ? done : undefined;
    },
    300_000,
    `${count} of ${ids.length} jobs to complete`,
  );
}

/** A seeded generator, so a failing run can be repeated (GYRE_STRESS_SEED). */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe(`a fleet of ${JOBS} jobs with workers killed at random`, () => {
  it("completes every job once, with its own answer, journal and tool-run count", async () => {
    const seed = Number(process.env.GYRE_STRESS_SEED ?? Date.now() % 100_000);
    const next = random(seed);
    const { cwd, home } = await workspace(root, "stress");
    const env = { OPENAI_API_KEY: "sk-stress-0000000000000000", OPENAI_BASE_URL: `${server.url}/v1` };
    const args = ["--queue", "stress", "--allow-root", root, "--concurrency", "3", "--lock-ms", "2000"];
    const workers: Promise<ChildProcess>[] = [0, 1, 2].map(() => pool.start(home, args, env));
    await Promise.all(workers);
    const client = await createFleetClient({ redisUrl: redis.url, queue: "stress" });
    const folderOf = (n: number) => join(cwd, `job-${n}`);
    try {
      await Promise.all(Array.from({ length: JOBS }, (_, n) => mkdir(folderOf(n))));
      const ids = await Promise.all(
        Array.from({ length: JOBS }, (_, n) =>
          client.submit({ prompt: `tag-${n}`, cwd: folderOf(n), provider: "openai", model: "gpt-4o", tools: ["bash"] }),
        ),
      );
      // Kills at random points of the drain: kill k once a random share of the jobs between k+½
      // and k+1 sixths has completed, so that a third of the jobs or more are left at the last;
      // each takes a random worker. The replacement starts while the drain goes on: waiting for
      // it to be ready let a loaded machine finish the jobs meant for the next kill.
      let unfinishedAtLastKill = 0;
      for (let kill = 0; kill < KILLS; kill++) {
        const share = (kill + 0.5 + next() * 0.5) / (KILLS + 2);
        unfinishedAtLastKill = JOBS - (await untilCompleted(client, ids, Math.floor(JOBS * share)));
        const index = Math.floor(next() * workers.length);
        (await workers[index])?.kill("SIGKILL");
        const replacement = pool.start(home, args, env);
        replacement.catch(() => {}); // its failure is reported where it is awaited, below
        workers[index] = replacement;
      }
      await Promise.all(workers);
      // The kills must fall inside the drain, or the test proves nothing about them.
      expect(unfinishedAtLastKill, "jobs still running or waiting at the last kill").toBeGreaterThan(0);
      const states = await waitForJobs(client, ids, 600_000);
      expect(states.map((job) => job?.state)).toEqual(ids.map(() => "completed"));
      const problems: string[] = [];
      let interrupted = 0;
      for (const [n, id] of ids.entries()) {
        const job = await client.get(id);
        const { messages, answers } = await journalOf(client, id);
        const results = messages.filter((message) => message.role === "toolResult");
        const runs = (await readFile(join(folderOf(n), "runs.txt"), "utf8").catch(() => ""))
          .split("\n")
          .filter((line) => line !== "");
        const wasInterrupted = JSON.stringify(results).includes("interrupted");
        if (wasInterrupted) interrupted++;
        const expectedRuns = wasInterrupted ? [[], [`run-${n}`]] : [[`run-${n}`]];
        if (job?.result?.text !== `answer-${n}`)
          problems.push(`job ${id}: answer ${JSON.stringify(job?.result?.text)}`);
        if (answers.length !== 1) problems.push(`job ${id}: ${answers.length} final answers in the journal`);
        if (results.length !== 1) problems.push(`job ${id}: ${results.length} tool results in the journal`);
        if (!expectedRuns.some((runsWanted) => JSON.stringify(runsWanted) === JSON.stringify(runs)))
          problems.push(`job ${id}: tool ran ${JSON.stringify(runs)} (interrupted: ${wasInterrupted})`);
      }
      expect(problems, `seed ${seed}, ${interrupted} interrupted`).toEqual([]);
    } finally {
      await client.close();
    }
  }, 660_000);
});

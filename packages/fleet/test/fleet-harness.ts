import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../../cli/test/helpers/fake-model-server.mjs";
import { type RedisServer, startRedisServer } from "../../cli/test/helpers/redis-server.js";
import { cliEnv, gyreBin } from "../../cli/test/helpers/run-cli.js";
import type { FleetClient, JobInfo } from "../src/fleet-client.js";

/** Worker processes started by a test file; `killAll` ends them (SIGKILL: they hold no state of ours). */
export function createWorkerPool(redisUrl: () => string) {
  const workers: ChildProcess[] = [];
  return {
    /** Starts `gyre worker` as its own process; resolves once it says it is ready. */
    async start(home: string, args: string[] = [], env: Record<string, string> = {}): Promise<ChildProcess> {
      const child = spawn(process.execPath, [gyreBin, "worker", "--redis", redisUrl(), ...args], {
        env: cliEnv(home, env),
        stdio: ["ignore", "ignore", "pipe"],
      });
      workers.push(child);
      // Kept from the first byte: a job's first line can come in the chunk that says "ready".
      let seen = "";
      stderrOf.set(child, () => seen);
      await new Promise<void>((resolve, reject) => {
        child.stderr?.on("data", (chunk: Buffer) => {
          seen += chunk.toString();
          if (seen.includes("ready on queue")) resolve();
        });
        child.on("exit", (code) => reject(new Error(`worker exited with ${code}: ${seen}`)));
      });
      return child;
    },
    killAll(): void {
      for (const worker of workers) worker.kill("SIGKILL");
    },
  };
}

/** Everything a pool's worker wrote to stderr, since it started. */
const stderrOf = new WeakMap<ChildProcess, () => string>();

/** The process's stderr as it arrives (all of it, for a worker the pool started). */
export function captureStderr(child: ChildProcess): () => string {
  const kept = stderrOf.get(child);
  if (kept) return kept;
  let text = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  return () => text;
}

/** The exit code once the process ended and its stderr is read to the end ("close", not "exit"). */
export const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once("close", resolve));

/** Polls `check` every 100 ms until it gives a value; throws naming `what` after `timeoutMs`. */
export async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Timed out waiting for ${what}.`);
}

/** A project folder and a GYRE_HOME under `root/name`. */
export async function workspace(root: string, name: string): Promise<{ cwd: string; home: string }> {
  const cwd = join(root, name, "project");
  const home = join(root, name, "home");
  await mkdir(cwd, { recursive: true });
  await mkdir(home, { recursive: true });
  return { cwd, home };
}

/** Waits until every job has finished (completed or failed) and returns them in order. */
export function waitForJobs(client: FleetClient, ids: string[], timeoutMs: number): Promise<(JobInfo | undefined)[]> {
  return waitFor(
    async () => {
      const jobs = await Promise.all(ids.map((id) => client.get(id)));
      return jobs.every((job) => job?.state === "completed" || job?.state === "failed") ? jobs : undefined;
    },
    timeoutMs,
    `${ids.length} jobs`,
  );
}

/** The job's journal as parsed entries, and its messages. */
export async function journalOf(client: FleetClient, id: string) {
  const entries = (await client.sessionJsonl(id))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; message?: Record<string, unknown> & { role: string } });
  const messages = entries.flatMap((entry) => (entry.type === "message" && entry.message ? [entry.message] : []));
  return { entries, messages, answers: messages.filter((m) => m.role === "assistant" && m.stopReason === "stop") };
}

/**
 * The fake model of the eval tests: model "good" writes the file the task's check wants (a copy of
 * seed.txt), "bad" sends a bash call whose arguments are not JSON (a harness fault); both answer
 * "finished" once they have a tool result.
 */
export function goodOrBadModel({ body }: { body: { model?: string; messages?: { role: string }[] } }) {
  const results = (body.messages ?? []).filter((message) => message.role === "tool");
  if (results.length > 0) return { text: "finished" };
  if (body.model === "good") return { toolCalls: [{ name: "bash", arguments: { command: "cat seed.txt > out.txt" } }] };
  return { toolCalls: [{ name: "bash", arguments: '{"command": "echo broken' }] };
}

/**
 * A test file's fleet: a redis-server and a fake model server answering with `respond`, both
 * started before its tests and stopped after them with every worker the pool started.
 */
export function useFleet(prefix: string, respond: Parameters<typeof startFakeModelServer>[0]["respond"]) {
  const state = {} as { root: string; redis: RedisServer; server: FakeModelServer };
  const pool = createWorkerPool(() => state.redis.url);
  beforeAll(async () => {
    state.root = await mkdtemp(join(tmpdir(), prefix));
    state.redis = await startRedisServer(join(state.root, "redis"));
    state.server = await startFakeModelServer({ respond });
  });
  afterAll(async () => {
    pool.killAll();
    await state.server?.close();
    await state.redis?.stop();
  });
  return { state, pool };
}

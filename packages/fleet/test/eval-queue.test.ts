import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../../cli/test/helpers/fake-model-server.mjs";
import { type RedisServer, requireRedisServer, startRedisServer } from "../../cli/test/helpers/redis-server.js";
import { cliEnv, runCli } from "../../cli/test/helpers/run-cli.js";
import { wilsonInterval } from "../src/eval-report.js";
import { createWorkerPool, goodOrBadModel, workspace } from "./fleet-harness.js";

requireRedisServer();

let root: string;
let redis: RedisServer;
let server: FakeModelServer;
const pool = createWorkerPool(() => redis.url);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "gyre-eval-queue-"));
  redis = await startRedisServer(join(root, "redis"));
  // Model "stuck" waits 30 s after each piece of its answer: the run outlives a 2 s timeout.
  server = await startFakeModelServer({
    respond: (request) =>
      request.body.model === "stuck" ? { text: "thinking about it", delayMs: 30_000 } : goodOrBadModel(request),
  });
});

afterAll(async () => {
  pool.killAll();
  await server?.close();
  await redis?.stop();
});

describe("gyre eval --redis", () => {
  it("runs every run as a job on two workers and builds the same table from the queue's results and journals", async () => {
    const { cwd: dir, home } = await workspace(root, "eval");
    await mkdir(join(dir, "task-a"), { recursive: true });
    await writeFile(join(dir, "task-a", "seed.txt"), "seed\n");
    await writeFile(
      join(dir, "tasks.jsonl"),
      `${JSON.stringify({ id: "copy-seed", prompt: "copy seed.txt to out.txt", folder: "task-a", check: "grep -q seed out.txt", tools: ["bash"] })}\n`,
    );
    // The provider's key and address live with the workers only; the eval names models.
    const workerEnv = { OPENAI_API_KEY: "sk-eval-queue-0000000000000000", OPENAI_BASE_URL: `${server.url}/v1` };
    const workers = await Promise.all([0, 1].map(() => pool.start(home, ["--queue", "evalq"], workerEnv)));
    const started = workers.map(() => 0);
    for (const [index, worker] of workers.entries())
      worker.stderr?.on("data", (chunk: Buffer) => {
        started[index] = (started[index] ?? 0) + (chunk.toString().match(/ attempt 1 started/g)?.length ?? 0);
      });
    const args = ["eval", "tasks.jsonl", "--redis", redis.url, "--queue", "evalq", "--repeat", "3"];
    const run = await runCli([...args, "--model", "openai/good", "--model", "openai/bad", "--out", "out"], {
      cwd: dir,
      env: cliEnv(join(dir, "eval-home")),
    });
    expect(run.stderr).toContain("6 runs (1 task × 2 variants × 3 repeats), as jobs on queue evalq");
    expect(run.code).toBe(0);
    expect(started.reduce((sum, count) => sum + count, 0)).toBe(6);
    expect(started.every((count) => count > 0)).toBe(true);
    const report = JSON.parse(await readFile(join(dir, "out", "results.json"), "utf8"));
    const [good, bad] = report.summaries;
    expect(good).toMatchObject({ variant: "openai/good", runs: 3, passed: 3, passRate: 1, harnessErrors: 0 });
    expect(good.meanTurns).toBe(2);
    expect(good.interval).toEqual(wilsonInterval(3, 3));
    expect(good.tokens).toBeGreaterThan(0);
    expect(bad).toMatchObject({ variant: "openai/bad", runs: 3, passed: 0, harnessErrors: 3 });
    expect(bad.harnessErrorKinds).toEqual({ "tool-call parse failure": 3 });
    expect(report.runs.map((record: { repeat: number }) => record.repeat)).toEqual([1, 2, 3, 1, 2, 3]);
    // Each run's session came back from its journal in Redis: the prompt and the worker's copy.
    const session = (await readFile(report.runs[0].sessionFile, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(session[0]).toMatchObject({ type: "session" });
    expect(session[0].cwd).not.toBe(join(dir, "task-a"));
    const messages = session.flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(messages[0]).toMatchObject({ role: "user", content: "copy seed.txt to out.txt" });
    const markdown = await readFile(join(dir, "out", "results.md"), "utf8");
    expect(run.stdout).toBe(markdown);
    expect(markdown).toContain("| openai/good | 3/3 |");
    // Every job worked in its own copy: the task folder itself is untouched.
    await expect(readFile(join(dir, "task-a", "out.txt"))).rejects.toThrow();
  }, 240_000);

  it("cancels a job that runs past --timeout and records it as a timeout, a harness error", async () => {
    const { cwd: dir, home } = await workspace(root, "timeout");
    await mkdir(join(dir, "task"), { recursive: true });
    await writeFile(
      join(dir, "tasks.jsonl"),
      `${JSON.stringify({ id: "stuck", prompt: "answer", folder: "task", check: "true", tools: [] })}\n`,
    );
    const workerEnv = { OPENAI_API_KEY: "sk-eval-queue-0000000000000000", OPENAI_BASE_URL: `${server.url}/v1` };
    await pool.start(home, ["--queue", "timeoutq"], workerEnv);
    const args = ["eval", "tasks.jsonl", "--redis", redis.url, "--queue", "timeoutq", "--timeout", "2"];
    const run = await runCli([...args, "--model", "openai/stuck", "--out", "out"], {
      cwd: dir,
      env: cliEnv(join(dir, "eval-home")),
    });
    expect(run.code).toBe(0);
    const report = JSON.parse(await readFile(join(dir, "out", "results.json"), "utf8"));
    expect(report.runs[0]).toMatchObject({ reason: "timeout", passed: false, harnessErrors: { timeout: 1 } });
    expect(report.summaries[0]).toMatchObject({ runs: 1, passed: 0, harnessErrors: 1 });
  }, 120_000);

  it("refuses --build with --redis in one sentence (the workers run their own build)", async () => {
    const { cwd: dir } = await workspace(root, "build");
    await writeFile(join(dir, "tasks.jsonl"), `${JSON.stringify({ prompt: "x", folder: ".", check: "true" })}\n`);
    const run = await runCli(["eval", "tasks.jsonl", "--redis", redis.url, "--build", "a=x.js"], {
      cwd: dir,
      env: cliEnv(join(dir, "home")),
    });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(/gyre eval --redis runs each job on the workers' own build;.*\.$/);
  });
});

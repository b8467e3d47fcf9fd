import { cp, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wilsonInterval } from "../../src/fleet/eval-report.js";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, runCli } from "../helpers/run-cli.js";
import { goodOrBadModel } from "./fleet-harness.js";

let root: string;
let server: FakeModelServer;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "gyre-eval-"));
  server = await startFakeModelServer({ respond: goodOrBadModel });
});

afterAll(async () => {
  await server?.close();
});

describe("gyre eval", () => {
  it("compares two models over a task set with repeats: pass rates with Wilson intervals, tokens, turns, harness errors, as Markdown and JSON", async () => {
    const dir = join(root, "eval");
    await mkdir(join(dir, "task-a"), { recursive: true });
    await writeFile(join(dir, "task-a", "seed.txt"), "seed\n");
    await writeFile(
      join(dir, "tasks.jsonl"),
      `${JSON.stringify({ id: "copy-seed", prompt: "copy seed.txt to out.txt", folder: "task-a", check: "grep -q seed out.txt", tools: ["bash"] })}\n`,
    );
    const env = cliEnv(join(dir, "home"), {
      OPENAI_API_KEY: "sk-eval-000000000000000000",
      OPENAI_BASE_URL: `${server.url}/v1`,
    });
    const run = await runCli(
      [
        "eval",
        "tasks.jsonl",
        "--workers",
        "2",
        "--repeat",
        "2",
        "--model",
        "openai/good",
        "--model",
        "openai/bad",
        "--out",
        "out",
      ],
      { cwd: dir, env },
    );
    expect(run.stderr).toContain("4 runs (1 tasks × 2 variants × 2), 2 at a time");
    expect(run.code).toBe(0);
    const report = JSON.parse(await readFile(join(dir, "out", "results.json"), "utf8"));
    const [good, bad] = report.summaries;
    expect(good).toMatchObject({
      variant: "openai/good",
      runs: 2,
      passed: 2,
      passRate: 1,
      harnessErrors: 0,
      meanTurns: 2,
    });
    expect(good.interval).toEqual(wilsonInterval(2, 2));
    expect(good.tokens).toBeGreaterThan(0);
    expect(bad).toMatchObject({ variant: "openai/bad", runs: 2, passed: 0, harnessErrors: 2 });
    expect(bad.harnessErrorKinds).toEqual({ "tool-call parse failure": 2 });
    expect(report.runs).toHaveLength(4);
    expect(report.runs[0].replay).toBe(
      `gyre replay ${JSON.stringify(report.runs[0].sessionFile)} --workspace ${JSON.stringify(join(dir, "task-a"))}`,
    );
    const markdown = await readFile(join(dir, "out", "results.md"), "utf8");
    expect(run.stdout).toBe(markdown);
    expect(markdown).toContain("| openai/good | 2/2 | 100% (34%–100%) |");
    expect(markdown).toContain("tool-call parse failure 2");
    // Every run worked in its own copy: the task folder itself is untouched.
    await expect(readFile(join(dir, "task-a", "out.txt"))).rejects.toThrow();
  }, 120_000);

  it("refuses a tasks file with a bad line in one sentence naming the line", async () => {
    const dir = join(root, "bad-tasks");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "tasks.jsonl"), `${JSON.stringify({ prompt: "x", folder: "." })}\n`);
    const run = await runCli(["eval", "tasks.jsonl"], { cwd: dir, env: cliEnv(join(dir, "home")) });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(/tasks\.jsonl line 1: "check" must be a shell command\.$/);
  });
});

describe("gyre replay", () => {
  it("replays a recorded session against the current tools: no difference, then the changed file's output as a difference", async () => {
    const dir = join(root, "replay");
    const project = join(dir, "project");
    await mkdir(project, { recursive: true });
    await writeFile(join(project, "greet.sh"), "echo hello from v1\n");
    await cp(project, join(dir, "before"), { recursive: true });
    const script = join(dir, "script.json");
    await writeFile(
      script,
      JSON.stringify([
        {
          content: [
            { type: "toolCall", name: "bash", arguments: { command: "bash greet.sh; echo written > note.txt" } },
          ],
        },
        { content: [{ type: "toolCall", name: "read", arguments: { path: "note.txt" } }] },
        { content: [{ type: "text", text: "greeted" }] },
      ]),
    );
    const env = cliEnv(join(dir, "home"));
    const recorded = await runCli(["--mode", "json", "-p", "--provider", "faux", "--faux-script", script, "greet"], {
      cwd: project,
      env,
    });
    expect(recorded.code).toBe(0);
    const sessionFile = JSON.parse(recorded.stdout.trim().split("\n").at(-1) as string).sessionFile as string;

    const same = await runCli(["replay", sessionFile, "--workspace", join(dir, "before")], { cwd: dir, env });
    expect(same.stdout).toContain("2 recorded tool result(s), 2 replayed, 0 differ.");
    expect(same.code).toBe(0);

    await writeFile(join(dir, "before", "greet.sh"), "echo hello from v2\n");
    const changed = await runCli(["replay", sessionFile, "--workspace", join(dir, "before")], { cwd: dir, env });
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain(
      'tool result 1 (bash {"command":"bash greet.sh; echo written > note.txt"}) differs:',
    );
    expect(changed.stdout).toContain("recorded: hello from v1");
    expect(changed.stdout).toContain("now:      hello from v2");
    expect(changed.stdout).toContain("2 recorded tool result(s), 2 replayed, 1 differ.");
    // The replay ran in a copy: the folder given stays as it was.
    await expect(readFile(join(dir, "before", "note.txt"))).rejects.toThrow();
  }, 120_000);
});

import { cp, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../../cli/test/helpers/fake-model-server.mjs";
import { cliEnv, runCli } from "../../cli/test/helpers/run-cli.js";
import { wilsonInterval } from "../src/eval-report.js";
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
    expect(run.stderr).toContain("4 runs (1 task × 2 variants × 2 repeats), 2 at a time");
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
    const page = await readFile(join(dir, "out", "results.html"), "utf8");
    expect(page).toContain('data-label="openai/good" data-value="1"');
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
  it("replays every request of a multi-turn session in order: no difference, then the one changed result with its request, turn, call and diff", async () => {
    const dir = join(root, "replay");
    const project = join(dir, "project");
    await mkdir(project, { recursive: true });
    await writeFile(join(project, "greet.sh"), "echo hello from v1\n");
    await writeFile(join(project, "second.sh"), "echo alpha\necho beta\necho gamma\n");
    await cp(project, join(dir, "before"), { recursive: true });
    const bash = (command: string) => ({ content: [{ type: "toolCall", name: "bash", arguments: { command } }] });
    const scripts = [
      [
        bash("bash greet.sh; echo written > note.txt"),
        bash("cat note.txt"),
        { content: [{ type: "text", text: "greeted" }] },
      ],
      // The second request reads what the first one wrote: both replay in the same copy, in order.
      [
        bash("cat note.txt; echo again >> note.txt"),
        bash("bash second.sh"),
        { content: [{ type: "text", text: "ran" }] },
      ],
    ];
    const env = cliEnv(join(dir, "home"));
    let sessionFile = "";
    for (const [index, script] of scripts.entries()) {
      const file = join(dir, `script-${index + 1}.json`);
      await writeFile(file, JSON.stringify(script));
      const session = sessionFile === "" ? [] : ["--session", sessionFile];
      const args = [
        "--mode",
        "json",
        "-p",
        ...session,
        "--provider",
        "faux",
        "--faux-script",
        file,
        `request ${index + 1}`,
      ];
      const recorded = await runCli(args, { cwd: project, env });
      expect(recorded.code).toBe(0);
      sessionFile = JSON.parse(recorded.stdout.trim().split("\n").at(-1) as string).sessionFile as string;
    }

    const same = await runCli(["replay", sessionFile, "--workspace", join(dir, "before")], { cwd: dir, env });
    expect(same.stdout).toBe("4 recorded tool result(s) in 2 request(s), 4 replayed, 0 differ.\n");
    expect(same.code).toBe(0);

    await writeFile(join(dir, "before", "second.sh"), "echo alpha\necho BETA\necho gamma\n");
    const changed = await runCli(["replay", sessionFile, "--workspace", join(dir, "before")], { cwd: dir, env });
    expect(changed.code).toBe(1);
    expect(changed.stdout).toBe(
      [
        'request 2, turn 2: bash {"command":"bash second.sh"} gives another result',
        "  expected: alpha",
        "            beta",
        "            gamma",
        "  got:      alpha",
        "            BETA",
        "            gamma",
        "  diff:     @@ line 2",
        "            - beta",
        "            + BETA",
        "4 recorded tool result(s) in 2 request(s), 4 replayed, 1 differ.",
        "",
      ].join("\n"),
    );
    // The replay ran in a copy: the folder given stays as it was.
    await expect(readFile(join(dir, "before", "note.txt"))).rejects.toThrow();
  }, 120_000);
});

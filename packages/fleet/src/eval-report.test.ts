import { describe, expect, it } from "vitest";
import { type EvalRunRecord, renderEvalMarkdown, summariseRuns, wilsonInterval } from "./eval-report.js";
import { parseEvalBuild, parseEvalModel, parseEvalTasks } from "./eval-tasks.js";

const run = (variant: string, passed: boolean, extra: Partial<EvalRunRecord> = {}): EvalRunRecord => ({
  task: "t",
  variant,
  repeat: 1,
  passed,
  reason: "stop",
  cost: 0.01,
  tokens: 100,
  turns: 2,
  wallMs: 1000,
  harnessErrors: {},
  sessionFile: "/s.jsonl",
  ...extra,
});

describe("eval results", () => {
  it("gives the 95% Wilson interval of a pass rate", () => {
    const [low, high] = wilsonInterval(8, 10);
    expect(low).toBeCloseTo(0.4902, 3);
    expect(high).toBeCloseTo(0.9433, 3);
    expect(wilsonInterval(0, 5)[0]).toBe(0);
    expect(wilsonInterval(5, 5)[1]).toBe(1);
    expect(wilsonInterval(0, 0)).toEqual([0, 0]);
  });

  it("sums cost, tokens and harness errors per variant and lists failed runs", () => {
    const records = [
      run("a", true),
      run("a", false, { reason: "budget", harnessErrors: { "unknown tool": 2 } }),
      run("b", true, { turns: 4 }),
    ];
    const [a, b] = summariseRuns(records);
    expect(a).toMatchObject({ variant: "a", runs: 2, passed: 1, passRate: 0.5, tokens: 200, harnessErrors: 2 });
    expect(a?.costUsd).toBeCloseTo(0.02);
    expect(b).toMatchObject({ variant: "b", runs: 1, meanTurns: 4 });
    const markdown = renderEvalMarkdown(summariseRuns(records), records);
    expect(markdown).toContain("| a | 1/2 | 50% (9%–91%) | $0.0200 | 200 | 2.0 | 1.0 s | 2 (unknown tool 2) |");
    expect(markdown).toContain("- a · t #1: budget (/s.jsonl)");
  });
});

describe("eval input", () => {
  it("reads tasks with folders relative to the tasks file and git sources", () => {
    const tasks = parseEvalTasks(
      [
        JSON.stringify({ id: "one", prompt: "p", folder: "fixtures/a", check: "true" }),
        "",
        JSON.stringify({ prompt: "q", git: { url: "/repo.git", ref: "v1" }, check: "make test", maxTurns: 3 }),
      ].join("\n"),
      "/evals/tasks.jsonl",
    );
    expect(tasks[0]?.source).toEqual({ folder: "/evals/fixtures/a" });
    expect(tasks[1]).toMatchObject({ id: "task-2", source: { git: { url: "/repo.git", ref: "v1" } }, maxTurns: 3 });
  });

  it("names the line of a bad task and refuses duplicate ids", () => {
    expect(() => parseEvalTasks("{nope", "t.jsonl")).toThrow(
      "t.jsonl line 1 is not JSON; each line is one task object.",
    );
    expect(() => parseEvalTasks(JSON.stringify({ prompt: "p", check: "c" }), "t.jsonl")).toThrow(
      /give either "folder"/,
    );
    const twice = JSON.stringify({ id: "x", prompt: "p", folder: ".", check: "c" });
    expect(() => parseEvalTasks(`${twice}\n${twice}`, "t.jsonl")).toThrow('task id "x" is used twice');
  });

  it("splits models at the first slash and builds at the first equals sign", () => {
    expect(parseEvalModel("openrouter/meta/llama-3")).toEqual({
      label: "openrouter/meta/llama-3",
      provider: "openrouter",
      model: "meta/llama-3",
    });
    expect(parseEvalModel("gpt-4o")).toEqual({ label: "gpt-4o", model: "gpt-4o" });
    expect(() => parseEvalModel("openai/")).toThrow(/provider\/model-id/);
    expect(parseEvalBuild("old=../old/gyre.js", "/w")).toEqual({ label: "old", gyreBin: "/old/gyre.js" });
  });
});

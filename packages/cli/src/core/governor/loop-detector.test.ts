import { type AssistantMessage, createEmptyUsage, type ToolResultMessage } from "@gyre/ai";
import { describe, expect, it } from "vitest";
import { createLoopDetector, type LoopDetector, type LoopVerdict } from "./loop-detector.js";

type Step = { tool?: string; args?: Record<string, unknown>; result?: string; isError?: boolean; text?: string };

let nextId = 0;

function turn(step: Step): [AssistantMessage, ToolResultMessage[]] {
  const id = `call_${nextId++}`;
  const content: AssistantMessage["content"] = [];
  if (step.text !== undefined) content.push({ type: "text", text: step.text });
  if (step.tool !== undefined) content.push({ type: "toolCall", id, name: step.tool, arguments: step.args ?? {} });
  const message: AssistantMessage = {
    role: "assistant",
    content,
    api: "faux",
    provider: "faux",
    model: "faux",
    usage: createEmptyUsage(),
    stopReason: step.tool === undefined ? "stop" : "toolUse",
    timestamp: 0,
  };
  const results: ToolResultMessage[] =
    step.tool === undefined
      ? []
      : [
          {
            role: "toolResult",
            toolCallId: id,
            toolName: step.tool,
            content: [{ type: "text", text: step.result ?? "" }],
            isError: step.isError ?? false,
            timestamp: 0,
          },
        ];
  return [message, results];
}

function run(detector: LoopDetector, steps: readonly Step[]): LoopVerdict[] {
  return steps.map((step) => detector.observeTurn(...turn(step)));
}

const actions = (verdicts: readonly LoopVerdict[]) => verdicts.map((verdict) => verdict.action);

describe("loop detector", () => {
  it("warns when the same call returns the same result four times, then stops if it goes on", () => {
    const step = { tool: "read", args: { path: "a.ts" }, result: "same content" };
    const verdicts = run(
      createLoopDetector(),
      Array.from({ length: 6 }, () => step),
    );
    expect(actions(verdicts)).toEqual(["continue", "continue", "continue", "warn", "continue", "stop"]);
    expect(verdicts[3]).toMatchObject({ pattern: "repeated_call", toolName: "read" });
    expect(verdicts[3]?.action === "warn" && verdicts[3].message).toMatch(/same arguments 4 times/);
  });

  it("treats argument objects with the same keys in another order as the same call", () => {
    const verdicts = run(createLoopDetector(), [
      { tool: "grep", args: { pattern: "x", path: "src" }, result: "none" },
      { tool: "grep", args: { path: "src", pattern: "x" }, result: "none" },
      { tool: "grep", args: { pattern: "x", path: "src" }, result: "none" },
      { tool: "grep", args: { path: "src", pattern: "x" }, result: "none" },
    ]);
    expect(verdicts[3]).toMatchObject({ action: "warn", pattern: "repeated_call" });
  });

  it("catches the same failing call retried, even when the error text changes", () => {
    const verdicts = run(
      createLoopDetector(),
      [1, 2, 3].map((n) => ({ tool: "bash", args: { command: "make" }, result: `error at ${n}`, isError: true })),
    );
    expect(verdicts[2]).toMatchObject({ action: "warn", pattern: "repeated_failure", toolName: "bash" });
  });

  it("catches two calls alternating with unchanged results", () => {
    const a = { tool: "read", args: { path: "a.ts" }, result: "A" };
    const b = { tool: "read", args: { path: "b.ts" }, result: "B" };
    const verdicts = run(createLoopDetector(), [a, b, a, b, a, b]);
    expect(actions(verdicts).slice(0, 5)).toEqual(["continue", "continue", "continue", "continue", "continue"]);
    expect(verdicts[5]).toMatchObject({ action: "warn", pattern: "alternating_calls" });
  });

  it("catches the same answer text three turns running and a line repeated within one answer", () => {
    const repeatedAnswers = run(createLoopDetector(), [
      { text: "I will now fix it." },
      { text: "I will now  fix it." },
      { text: "i will now fix it." },
    ]);
    expect(repeatedAnswers[2]).toMatchObject({ action: "warn", pattern: "repeated_text" });
    const stutter = Array.from({ length: 12 }, () => "The function returns the wrong value.").join(" ");
    const [verdict] = run(createLoopDetector(), [{ text: `Here is the problem. ${stutter}` }]);
    expect(verdict).toMatchObject({ action: "warn", pattern: "repeated_text" });
  });

  it("stays quiet on polling whose result changes", () => {
    const detector = createLoopDetector();
    const steps = Array.from({ length: 20 }, (_, n) => ({
      tool: "bash",
      args: { command: "curl -s localhost:8080/status" },
      result: n < 19 ? `pending ${n}` : "ready",
    }));
    expect(actions(run(detector, steps)).every((action) => action === "continue")).toBe(true);
  });

  it("stays quiet on a polling command that sleeps, even with the same result many times", () => {
    const step = {
      tool: "bash",
      args: { command: "sleep 5; gh run view 12 --json status" },
      result: '{"status":"in_progress"}',
    };
    const verdicts = run(
      createLoopDetector(),
      Array.from({ length: 25 }, () => step),
    );
    expect(actions(verdicts).every((action) => action === "continue")).toBe(true);
  });

  it("stays quiet on edit then npm test after each edit, failing tests included", () => {
    const steps: Step[] = [];
    for (let n = 0; n < 8; n++) {
      steps.push({
        tool: "edit",
        args: { path: "src/sum.ts", oldText: `v${n}`, newText: `v${n + 1}` },
        result: "Edited src/sum.ts",
      });
      steps.push({
        tool: "bash",
        args: { command: "npm test" },
        result: n < 7 ? `FAIL 1 test (attempt ${n})` : "all passed",
        isError: n < 7,
      });
    }
    expect(actions(run(createLoopDetector(), steps)).every((action) => action === "continue")).toBe(true);
  });

  it("stays quiet on a recorded-style bug-fix session with reads, greps and reruns", () => {
    const steps: Step[] = [
      { tool: "ls", args: {}, result: "src/\npackage.json" },
      { tool: "read", args: { path: "package.json" }, result: "{…}" },
      { tool: "bash", args: { command: "npm test" }, result: "1 failed", isError: true },
      { tool: "grep", args: { pattern: "sum" }, result: "src/sum.ts:1" },
      { tool: "read", args: { path: "src/sum.ts" }, result: "export const sum = (a, b) => a - b" },
      { tool: "edit", args: { path: "src/sum.ts", oldText: "a - b", newText: "a + b" }, result: "Edited" },
      { tool: "bash", args: { command: "npm test" }, result: "all passed" },
      { tool: "read", args: { path: "src/sum.ts" }, result: "export const sum = (a, b) => a + b" },
      { text: "Fixed: sum subtracted instead of adding." },
    ];
    expect(actions(run(createLoopDetector(), steps)).every((action) => action === "continue")).toBe(true);
  });

  it("starts over after the model changes course, and after reset", () => {
    const detector = createLoopDetector();
    const same = { tool: "read", args: { path: "a.ts" }, result: "x" };
    expect(actions(run(detector, [same, same, same, same]))).toContain("warn");
    expect(actions(run(detector, [{ tool: "read", args: { path: "b.ts" }, result: "y" }, same, same, same]))).toEqual([
      "continue",
      "continue",
      "continue",
      "continue",
    ]);
    detector.reset();
    expect(actions(run(detector, [same, same, same]))).toEqual(["continue", "continue", "continue"]);
  });
});

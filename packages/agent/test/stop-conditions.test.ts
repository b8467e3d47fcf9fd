import type { Model } from "@gyre/ai";
import { createFauxModel, type FauxScriptItem } from "@gyre/ai/testing";
import { Type } from "@sinclair/typebox";
import { describe, expect, test } from "vitest";
import { runAgentLoop } from "../src/run-agent-loop.js";
import type { AgentEvent, AgentLoopOptions, AnyAgentTool } from "../src/types.js";
import { addTool, checkInvariants, collect, resultsOf, textOf } from "./helpers.js";

const user = (text: string) => ({ role: "user" as const, content: text, timestamp: 1 });
const addCall = (a: number, b = 1) => ({ type: "toolCall" as const, name: "add", arguments: { a, b } });
const text = (value: string): FauxScriptItem => ({ content: [{ type: "text", text: value }] });

async function run(script: FauxScriptItem[], options: Partial<AgentLoopOptions> = {}, model?: (m: Model) => Model) {
  const faux = createFauxModel(script);
  const outcome = await collect({
    model: model ? model(faux.model) : faux.model,
    context: { messages: [], tools: [addTool] },
    prompts: [user("go")],
    ...options,
  });
  checkInvariants(outcome.events, outcome.result);
  return { ...outcome, faux };
}

const budgetEvents = (events: AgentEvent[]) => events.filter((event) => event.type === "budget_reached");

describe("stop conditions", () => {
  test("ends normally when the model requests no tool", async () => {
    const { result, events } = await run([{ content: [addCall(1)] }, { content: [addCall(2)] }, text("3")]);
    expect(result.reason).toBe("stop");
    expect(events.filter((event) => event.type === "turn_start")).toHaveLength(3);
    expect(textOf(result.messages.at(-1))).toBe("3");
  });

  test("ends on a model error, giving its tool calls error results", async () => {
    const { result } = await run([{ content: [addCall(1)], error: "upstream overloaded" }]);
    expect(result.reason).toBe("error");
    const assistant = result.messages[1];
    expect(assistant).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: "upstream overloaded" });
    const results = resultsOf(result.messages);
    expect(results).toHaveLength(1);
    expect(textOf(results[0])).toBe(
      'This call to "add" was not run because the model\'s response failed: upstream overloaded',
    );
  });

  test("turns a stream function that throws into an error message", async () => {
    const { result } = await run([], {
      streamFn: () => {
        throw new Error("no socket");
      },
    });
    expect(result.reason).toBe("error");
    expect(result.messages[1]).toMatchObject({
      stopReason: "error",
      errorMessage: "no socket",
    });
  });

  test("stops when shouldStopAfterTurn says so", async () => {
    const seen: number[] = [];
    const { result, faux } = await run([{ content: [addCall(1)] }, { content: [addCall(2)] }, text("3")], {
      shouldStopAfterTurn: ({ turn, toolResults }) => {
        seen.push(turn);
        return toolResults.some((message) => textOf(message) === "3");
      },
    });
    expect(result.reason).toBe("stop_after_turn");
    expect(seen).toEqual([1, 2]);
    expect(faux.remaining()).toBe(1);
  });

  test("stops after a batch whose every result says terminate", async () => {
    const finish: AnyAgentTool = {
      name: "finish",
      label: "Finish",
      description: "Ends the run.",
      parameters: Type.Object({}),
      execute: async () => ({ content: [{ type: "text", text: "finished" }], terminate: true }),
    };
    const tools = [addTool, finish];
    const call = { type: "toolCall" as const, name: "finish", arguments: {} };
    const mixed = await run([{ content: [call, addCall(1)] }, { content: [call, call] }, text("never")], {
      context: { messages: [], tools },
    });
    expect(mixed.result.reason).toBe("terminate");
    expect(mixed.faux.remaining()).toBe(1);
    expect(mixed.events.filter((event) => event.type === "turn_start")).toHaveLength(2);
  });
});

describe("budgets", () => {
  const loop: FauxScriptItem[] = [{ content: [addCall(1)] }, { content: [addCall(2)] }, { content: [addCall(3)] }];

  test("ends the run at maxTurns with a budget_reached event", async () => {
    const { result, events } = await run([...loop, text("done")], { budgets: { maxTurns: 2 } });
    expect(result.reason).toBe("budget");
    expect(budgetEvents(events)).toEqual([
      {
        type: "budget_reached",
        budget: "turns",
        limit: 2,
        used: 2,
        reason:
          "The run stopped after 2 model turns, its turn budget (maxTurns 2); raise the limit or continue the run to go on.",
      },
    ]);
    expect(events.at(-2)?.type).toBe("budget_reached");
  });

  test("does not report a budget when the run ends on its own", async () => {
    const { result, events } = await run([{ content: [addCall(1)] }, text("done")], { budgets: { maxTurns: 2 } });
    expect(result.reason).toBe("stop");
    expect(budgetEvents(events)).toEqual([]);
  });

  test("ends the run at maxTotalTokens", async () => {
    const { result, events } = await run([...loop, text("done")], { budgets: { maxTotalTokens: 20 } });
    expect(result.reason).toBe("budget");
    const [budget] = budgetEvents(events);
    expect(budget).toMatchObject({ budget: "tokens", limit: 20 });
    expect(budget?.used).toBeGreaterThanOrEqual(20);
    expect(budget?.reason).toContain("reaching its token budget of 20");
  });

  test("ends the run at maxCostUsd", async () => {
    const priced = (model: Model): Model => ({
      ...model,
      cost: { input: 1_000_000, output: 1_000_000, cacheRead: 0, cacheWrite: 0 },
    });
    const { result, events } = await run([...loop, text("done")], { budgets: { maxCostUsd: 25 } }, priced);
    expect(result.reason).toBe("budget");
    const [budget] = budgetEvents(events);
    expect(budget).toMatchObject({ budget: "cost", limit: 25 });
    expect(budget?.reason).toMatch(/^The run cost \$\d+\.\d{4}, reaching its budget of \$25/);
  });

  test("ends the run at maxWallTimeMs, cancelling the running tool", async () => {
    let toolSignal: AbortSignal | undefined;
    const wait: AnyAgentTool = {
      ...addTool,
      execute: (_args, { signal }) => {
        toolSignal = signal;
        return new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true }),
        );
      },
    };
    const { result, events } = await run([{ content: [addCall(1)] }, text("never")], {
      context: { messages: [], tools: [wait] },
      budgets: { maxWallTimeMs: 30 },
    });
    expect(toolSignal?.aborted).toBe(true);
    expect(result.reason).toBe("budget");
    const [budget] = budgetEvents(events);
    expect(budget).toMatchObject({ budget: "time", limit: 30 });
    expect(budget?.used).toBeGreaterThanOrEqual(30);
    expect(textOf(resultsOf(result.messages)[0])).toContain("was cancelled because the run was aborted");
  });
});

describe("abort", () => {
  test("records the partial assistant message as aborted", async () => {
    const controller = new AbortController();
    const faux = createFauxModel([
      { content: [{ type: "text", text: "a long answer that streams slowly" }, addCall(1)], tokenDelayMs: 2 },
    ]);
    const events: AgentEvent[] = [];
    const generator = runAgentLoop({
      model: faux.model,
      context: { messages: [], tools: [addTool] },
      prompts: [user("go")],
      signal: controller.signal,
    });
    let next = await generator.next();
    while (!next.done) {
      events.push(next.value);
      if (next.value.type === "message_update" && next.value.event.type === "text_delta") controller.abort();
      next = await generator.next();
    }
    const result = next.value;
    checkInvariants(events, result);
    expect(result.reason).toBe("aborted");
    const assistant = result.messages[1];
    expect(assistant).toMatchObject({ role: "assistant", stopReason: "aborted" });
    expect(textOf(assistant).length).toBeGreaterThan(0);
    expect(textOf(assistant).length).toBeLessThan("a long answer that streams slowly".length);
  });

  test("cancels running tools, including one that ignores its signal", async () => {
    const controller = new AbortController();
    const seen: AbortSignal[] = [];
    const polite: AnyAgentTool = {
      ...addTool,
      name: "polite",
      execute: (_args, { signal }) => {
        seen.push(signal);
        return new Promise((resolve) =>
          signal.addEventListener("abort", () => resolve({ content: [{ type: "text", text: "stopped" }] })),
        );
      },
    };
    const stubborn: AnyAgentTool = {
      ...addTool,
      name: "stubborn",
      execute: () => {
        // Both tools are running now; abort while they are.
        queueMicrotask(() => controller.abort());
        return new Promise(() => {});
      },
    };
    const faux = createFauxModel([
      {
        content: [
          { type: "toolCall", name: "polite", arguments: { a: 1, b: 1 } },
          { type: "toolCall", name: "stubborn", arguments: { a: 1, b: 1 } },
        ],
      },
    ]);
    const events: AgentEvent[] = [];
    for await (const event of runAgentLoop({
      model: faux.model,
      context: { messages: [], tools: [polite, stubborn] },
      prompts: [user("go")],
      signal: controller.signal,
    })) {
      events.push(event);
    }
    const end = events.at(-1);
    if (end?.type !== "agent_end") throw new Error("no agent_end");
    checkInvariants(events, { messages: end.messages, reason: end.reason ?? "stop" });
    expect(end.reason).toBe("aborted");
    expect(seen[0]?.aborted).toBe(true);
    expect(resultsOf(end.messages).map((message) => [message.toolName, message.isError])).toEqual([
      ["polite", true],
      ["stubborn", true],
    ]);
  });

  test("gives calls not yet started in a sequential batch an error result", async () => {
    const controller = new AbortController();
    let runs = 0;
    const step: AnyAgentTool = {
      ...addTool,
      executionMode: "sequential",
      execute: async () => {
        runs++;
        controller.abort();
        return { content: [{ type: "text", text: "ran" }] };
      },
    };
    const { result } = await run([{ content: [addCall(1), addCall(2), addCall(3)] }], {
      context: { messages: [], tools: [step] },
      signal: controller.signal,
    });
    expect(runs).toBe(1);
    expect(resultsOf(result.messages).map(textOf)).toEqual([
      'The call to "add" was cancelled because the run was aborted; it may have partly run. Check its effects before repeating it.',
      'The call to "add" was not run because the run was aborted.',
      'The call to "add" was not run because the run was aborted.',
    ]);
  });

  test("ends at once when the signal is already aborted", async () => {
    const { result, faux } = await run([text("never")], { signal: AbortSignal.abort() });
    expect(result.reason).toBe("aborted");
    expect(result.messages.map((message) => message.role)).toEqual(["user"]);
    expect(faux.contexts).toHaveLength(0);
  });

  test("aborts the run when the consumer stops iterating", async () => {
    let toolSignal: AbortSignal | undefined;
    const wait: AnyAgentTool = {
      ...addTool,
      execute: (_args, { signal, onUpdate }) => {
        toolSignal = signal;
        onUpdate?.({ content: [{ type: "text", text: "working" }] });
        return new Promise(() => {});
      },
    };
    const faux = createFauxModel([{ content: [addCall(1)] }]);
    for await (const event of runAgentLoop({
      model: faux.model,
      context: { messages: [], tools: [wait] },
      prompts: [user("go")],
    })) {
      if (event.type === "tool_execution_update") break;
    }
    expect(toolSignal?.aborted).toBe(true);
  });
});

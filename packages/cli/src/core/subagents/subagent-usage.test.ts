import type { AgentEvent } from "@gyre/agent";
import { type AssistantMessage, createEmptyUsage, type ToolResultMessage, type Usage } from "@gyre/ai";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../session/session-manager.js";
import { computeSessionStats, UsageLedger } from "../session-stats.js";
import { RunningSubagentUsage, taskUsageOf } from "./subagent-usage.js";

function usage(input: number, cost: number): Usage {
  const spent = createEmptyUsage();
  Object.assign(spent, { input, output: 10, totalTokens: input + 10 });
  Object.assign(spent.cost, { input: cost, total: cost });
  return spent;
}

const answer = (input: number, cost: number) =>
  ({
    role: "assistant",
    content: [{ type: "text", text: "ok" }],
    api: "faux",
    provider: "faux",
    model: "faux",
    usage: usage(input, cost),
    stopReason: "stop",
    timestamp: 1,
  }) as AssistantMessage;

const taskResult = (toolCallId: string, spent?: Usage): ToolResultMessage => ({
  role: "toolResult",
  toolCallId,
  toolName: "task",
  content: [{ type: "text", text: "done" }],
  ...(spent === undefined ? {} : { details: { agent: "general", usage: spent } }),
  isError: false,
  timestamp: 2,
});

const ended = (message: AssistantMessage | ToolResultMessage): AgentEvent => ({ type: "message_end", message });

describe("subagents' spend in the session's totals", () => {
  it("counts a finished task's usage from its result, in a session read back from its entries", () => {
    const store = SessionManager.inMemory({ cwd: "/tmp" });
    store.appendMessage({ role: "user", content: "go", timestamp: 1 });
    store.appendMessage(answer(100, 0.01));
    store.appendMessage(taskResult("task-1", usage(300, 0.03)));
    store.appendMessage({ ...taskResult("read-1"), toolName: "read", details: { usage: usage(999, 9) } });
    const ledger = UsageLedger.fromEntries(store.getEntries());
    expect(ledger.tokens.input).toBe(400);
    expect(ledger.cost).toBeCloseTo(0.04);
    const messages = store.getEntries().flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
    expect(computeSessionStats(messages).tokens.input).toBe(400);
  });

  it("sums running subagents live, nested ones included, and hands each sum over once its result comes", () => {
    const running = new RunningSubagentUsage();
    running.observe("task-1", ended(answer(100, 0.01)));
    running.observe("nested-1", ended(answer(50, 0.005)));
    expect(running.total()).toMatchObject({ input: 150, cost: { total: 0.015 } });
    // The nested task's result reaches its caller: its live sum gives way to the result's.
    running.observe("task-1", ended(taskResult("nested-1", usage(50, 0.005))));
    running.observe("task-1", ended(answer(20, 0.002)));
    expect(running.total()).toMatchObject({ input: 170 });
    expect(running.take("task-1")).toMatchObject({ input: 170, totalTokens: 200 });
    expect(running.total()).toMatchObject({ input: 0, totalTokens: 0 });
  });

  it("reads usage only from task results with a well-formed usage", () => {
    expect(taskUsageOf(taskResult("t", usage(1, 0)))).toMatchObject({ input: 1 });
    expect(taskUsageOf(taskResult("t"))).toBeUndefined();
    expect(taskUsageOf({ ...taskResult("t"), details: { usage: { input: "lots" } } })).toBeUndefined();
    expect(taskUsageOf(answer(1, 0))).toBeUndefined();
  });
});

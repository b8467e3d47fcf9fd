import type { AgentEvent } from "@gyre/agent";
import { type AssistantMessage, createEmptyUsage, type ToolResultMessage, type Usage } from "@gyre/ai";
import { describe, expect, it } from "vitest";
import { SessionManager } from "./session/session-manager.js";
import { SessionUsage } from "./session-usage.js";

function spent(input: number, cost: number): Usage {
  const usage = createEmptyUsage();
  Object.assign(usage, { input, output: 0, totalTokens: input });
  Object.assign(usage.cost, { input: cost, total: cost });
  return usage;
}

const answer = (input: number): AssistantMessage =>
  ({
    role: "assistant",
    content: [{ type: "text", text: "ok" }],
    api: "faux",
    provider: "faux",
    model: "faux",
    usage: spent(input, input / 10_000),
    stopReason: "stop",
    timestamp: 1,
  }) as AssistantMessage;

const taskResult = (toolCallId: string, usage?: Usage): ToolResultMessage => ({
  role: "toolResult",
  toolCallId,
  toolName: "task",
  content: [{ type: "text", text: "done" }],
  ...(usage === undefined ? {} : { details: { agent: "general", usage } }),
  isError: false,
  timestamp: 2,
});

const ended = (message: AssistantMessage): AgentEvent => ({ type: "message_end", message });

/** What the session does at `message_end`: the file first, then the accounting. */
function end(store: SessionManager, usage: SessionUsage, message: AssistantMessage | ToolResultMessage): void {
  store.appendMessage(message);
  usage.recordMessage(message);
}

describe("SessionUsage", () => {
  it("builds its totals from the file once, then counts each ended message exactly once", () => {
    const store = SessionManager.inMemory({ cwd: "/tmp" });
    const usage = new SessionUsage();
    store.appendMessage({ role: "user", content: "go", timestamp: 1 });
    end(store, usage, answer(100));
    expect(usage.stats(store, [], 0).tokens.input).toBe(100);
    end(store, usage, answer(50));
    const stats = usage.stats(store, [], 7);
    expect(stats.tokens.input).toBe(150);
    expect(stats.contextTokens).toBe(7);
  });

  it("shows a running subagent's spend until its task result replaces it, never both", () => {
    const store = SessionManager.inMemory({ cwd: "/tmp" });
    const usage = new SessionUsage();
    expect(usage.stats(store, [], 0).tokens.input).toBe(0);
    usage.observeSubagent("task-1", ended(answer(30)));
    usage.observeSubagent("task-1", ended(answer(40)));
    expect(usage.stats(store, [], 0).tokens.input).toBe(70);
    end(store, usage, taskResult("task-1", spent(75, 0.0075)));
    expect(usage.stats(store, [], 0).tokens.input).toBe(75);
  });

  it("keeps an aborted task's live sum when its result carries no usage", () => {
    const store = SessionManager.inMemory({ cwd: "/tmp" });
    const usage = new SessionUsage();
    usage.stats(store, [], 0);
    usage.observeSubagent("task-1", ended(answer(30)));
    end(store, usage, taskResult("task-1"));
    expect(usage.stats(store, [], 0).tokens.input).toBe(30);
  });

  it("rebuilds its totals from the store after forgetTotals (a switched session)", () => {
    const usage = new SessionUsage();
    const first = SessionManager.inMemory({ cwd: "/tmp" });
    end(first, usage, answer(100));
    expect(usage.stats(first, [], 0).tokens.input).toBe(100);
    const second = SessionManager.inMemory({ cwd: "/tmp" });
    second.appendMessage(answer(5));
    expect(usage.stats(second, [], 0).tokens.input).toBe(100);
    usage.forgetTotals();
    expect(usage.stats(second, [], 0).tokens.input).toBe(5);
  });
});

import type { AssistantMessage } from "@gyre/ai";
import { describe, expect, it } from "vitest";
import { SessionManager } from "./session/session-manager.js";
import { computeSessionStats, UsageLedger } from "./session-stats.js";

function answer(text: string, input: number, cost: number): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "openai-completions",
    provider: "openai",
    model: "gpt-4o",
    usage: {
      input,
      output: 10,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: input + 10,
      cost: { input: cost, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
    },
    stopReason: "stop",
    timestamp: Date.now(),
  } as AssistantMessage;
}

describe("UsageLedger", () => {
  it("totals answers on every branch and compaction summaries, while counts follow the context", () => {
    const store = SessionManager.inMemory({ cwd: "/tmp" });
    const root = store.appendMessage({ role: "user", content: "first", timestamp: 1 });
    const kept = store.appendMessage(answer("a", 100, 0.01));
    store.appendMessage({ role: "user", content: "abandoned", timestamp: 2 });
    store.appendMessage(answer("b", 200, 0.02));
    store.branch(kept);
    store.appendCompaction({
      summary: "s",
      firstKeptEntryId: root,
      tokensBefore: 300,
      usage: answer("summary", 400, 0.04).usage,
    });
    const ledger = UsageLedger.fromEntries(store.getEntries());
    expect(ledger.tokens.input).toBe(700);
    expect(ledger.cost).toBeCloseTo(0.07);
    const stats = computeSessionStats(store.buildContext().messages, { ledger, contextTokens: 42 });
    expect(stats.cost).toBeCloseTo(0.07);
    expect(stats.contextTokens).toBe(42);
    expect(stats.userMessages).toBeLessThan(3);
  });
});

import type { AssistantMessage } from "@gyre/ai";
import { createEmptyUsage } from "@gyre/ai";
import { describe, expect, it } from "vitest";
import { createTreeBudget } from "./tree-budget.js";

function answer(tokens: number, cost: number): AssistantMessage {
  const usage = createEmptyUsage();
  usage.totalTokens = tokens;
  usage.cost.total = cost;
  return {
    role: "assistant",
    content: [],
    api: "faux",
    provider: "faux",
    model: "m",
    usage,
    stopReason: "stop",
    timestamp: 0,
  };
}

describe("the tree budget's breakdown per agent", () => {
  it("gives each agent its own turns, tokens, cost and wall time, the parent first", () => {
    let clock = 1_000;
    const budget = createTreeBudget({}, () => clock);
    const stopMain = budget.begin("main");
    clock = 1_200;
    const stopChild = budget.begin("explore#1");
    budget.charge("explore#1", answer(40, 0.01));
    clock = 1_700;
    stopChild();
    budget.charge("main", answer(100, 0.02));
    clock = 2_000;
    stopMain();
    clock = 9_000;
    expect(budget.breakdown()).toEqual([
      { agent: "main", turns: 1, tokens: 100, cost: 0.02, durationMs: 1_000 },
      { agent: "explore#1", turns: 1, tokens: 40, cost: 0.01, durationMs: 500 },
    ]);
  });

  it("counts a running agent's time up to now and goes on with a stopped clock from its start", () => {
    let clock = 0;
    const budget = createTreeBudget({}, () => clock);
    const stop = budget.begin("main");
    clock = 300;
    stop();
    clock = 1_000;
    budget.begin("main");
    clock = 1_500;
    expect(budget.breakdown()).toEqual([{ agent: "main", turns: 0, tokens: 0, cost: 0, durationMs: 1_500 }]);
  });

  it("forgets every agent when a new request starts", () => {
    let clock = 0;
    const budget = createTreeBudget({}, () => clock);
    budget.charge("general#1", answer(10, 0.5));
    clock = 50;
    budget.reset();
    expect(budget.breakdown()).toEqual([]);
    budget.charge("main", answer(1, 0));
    clock = 80;
    expect(budget.breakdown()).toEqual([{ agent: "main", turns: 1, tokens: 1, cost: 0, durationMs: 30 }]);
  });
});

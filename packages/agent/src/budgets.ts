import type { AssistantMessage } from "@gyre/ai";
import type { AgentBudgets, AgentEvent, BudgetName } from "./types.js";

/** A reached budget, as the `budget_reached` event carries it. */
export type BudgetReached = Extract<AgentEvent, { type: "budget_reached" }>;

/**
 * Counts what a run has used (turns, tokens, USD, wall time) and says when a budget is reached.
 * Constant work per turn: totals are kept running, never recomputed from the history.
 */
export class BudgetTracker {
  private turns = 0;
  private tokens = 0;
  private cost = 0;
  private readonly startedAt = Date.now();

  constructor(private readonly budgets: AgentBudgets = {}) {}

  /** Adds one finished model call. */
  record(message: AssistantMessage): void {
    this.turns++;
    this.tokens += message.usage.totalTokens;
    this.cost += message.usage.cost.total;
  }

  /** Model calls so far. */
  get turnCount(): number {
    return this.turns;
  }

  /** The first budget that forbids another model call, or undefined. */
  check(): BudgetReached | undefined {
    const { maxTurns, maxTotalTokens, maxCostUsd } = this.budgets;
    if (maxTurns !== undefined && this.turns >= maxTurns) return this.reached("turns", maxTurns, this.turns);
    if (maxTotalTokens !== undefined && this.tokens >= maxTotalTokens)
      return this.reached("tokens", maxTotalTokens, this.tokens);
    if (maxCostUsd !== undefined && this.cost >= maxCostUsd) return this.reached("cost", maxCostUsd, this.cost);
    return this.checkTime();
  }

  /** The wall-time budget if it is used up. */
  checkTime(): BudgetReached | undefined {
    const limit = this.budgets.maxWallTimeMs;
    if (limit === undefined) return undefined;
    const used = Date.now() - this.startedAt;
    return used >= limit ? this.reached("time", limit, used) : undefined;
  }

  /** The wall-time budget's event once its timer aborted the run (timers may round, so `used` is at least the limit). */
  timeReached(): BudgetReached {
    const limit = this.budgets.maxWallTimeMs ?? 0;
    return this.reached("time", limit, Math.max(limit, Date.now() - this.startedAt));
  }

  private reached(budget: BudgetName, limit: number, used: number): BudgetReached {
    return { type: "budget_reached", budget, limit, used, reason: describeBudget(budget, limit, used) };
  }
}

/** A sentence for the user: which budget, how much was used, how to go on. */
export function describeBudget(budget: BudgetName, limit: number, used: number): string {
  switch (budget) {
    case "turns":
      return `The run stopped after ${used} model turns, its turn budget (maxTurns ${limit}); raise the limit or continue the run to go on.`;
    case "tokens":
      return `The run used ${used} tokens, reaching its token budget of ${limit} (maxTotalTokens); raise the limit or continue the run to go on.`;
    case "cost":
      return `The run cost $${used.toFixed(4)}, reaching its budget of $${limit} (maxCostUsd); raise the limit or continue the run to go on.`;
    case "time":
      return `The run stopped after ${used} ms, reaching its wall-time budget of ${limit} ms (maxWallTimeMs); raise the limit or continue the run to go on.`;
    default: {
      const never: never = budget;
      return `The run reached a budget (${String(never)}).`;
    }
  }
}

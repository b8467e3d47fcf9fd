/**
 * One budget for a whole tree of agents (docs/design/delegation.md): every model call of the parent and of each
 * subagent is charged here, so `--max-cost` and the others bound what the tree spends together,
 * with a breakdown per agent for `/cost`, `get_session_stats` and the JSON `result` line.
 * Limits can be raised while running (interactive mode pauses and asks).
 */
import type { AgentBudgets, BudgetName } from "@gyre/agent";
import type { AssistantMessage } from "@gyre/ai";

/** What one agent of the tree has used; `durationMs` is its wall time (from its start to its end, or to now while it runs). */
export type AgentSpend = { agent: string; turns: number; tokens: number; cost: number; durationMs: number };

type AgentRecord = Omit<AgentSpend, "durationMs"> & { startedAt: number; endedAt?: number };

/** A limit the tree reached. */
export type TreeBudgetReached = { budget: BudgetName; limit: number; used: number; reason: string };

export type TreeBudget = {
  /** Charges one finished model call of `agent` (the parent is "main", which starts with the budget). */
  charge(agent: string, message: AssistantMessage): void;
  /**
   * Runs `agent`'s clock (a subagent about to run; "main" as a run starts): a new agent's clock
   * starts now, a stopped one goes on from its start. The returned function stops it.
   */
  begin(agent: string): () => void;
  /** The first limit reached, or undefined. */
  check(): TreeBudgetReached | undefined;
  /** Per-agent use, "main" first, then in the order agents began or first spent. */
  breakdown(): AgentSpend[];
  /** The whole tree's use. */
  total(): Omit<AgentSpend, "agent">;
  /** Starts over: nothing spent, the clock from now, the same limits (a new user request). */
  reset(): void;
  /** Replaces some limits (a user who raised the budget); undefined removes a limit. */
  raise(limits: Partial<AgentBudgets>): void;
  readonly limits: Readonly<AgentBudgets>;
};

/** Creates a tree budget with `limits`, its wall clock starting now. */
export function createTreeBudget(limits: AgentBudgets = {}, now: () => number = Date.now): TreeBudget {
  const current: AgentBudgets = { ...limits };
  const spend = new Map<string, AgentRecord>();
  const totals = { turns: 0, tokens: 0, cost: 0 };
  let startedAt = now();
  const recordOf = (agent: string): AgentRecord => {
    let entry = spend.get(agent);
    if (entry === undefined) {
      entry = { agent, turns: 0, tokens: 0, cost: 0, startedAt: agent === "main" ? startedAt : now() };
      spend.set(agent, entry);
    }
    return entry;
  };
  return {
    charge(agent, message) {
      const entry = recordOf(agent);
      entry.turns++;
      entry.tokens += message.usage.totalTokens;
      entry.cost += message.usage.cost.total;
      totals.turns++;
      totals.tokens += message.usage.totalTokens;
      totals.cost += message.usage.cost.total;
    },
    check() {
      const { maxTurns, maxTotalTokens, maxCostUsd, maxWallTimeMs } = current;
      if (maxTurns !== undefined && totals.turns >= maxTurns) return reached("turns", maxTurns, totals.turns);
      if (maxTotalTokens !== undefined && totals.tokens >= maxTotalTokens)
        return reached("tokens", maxTotalTokens, totals.tokens);
      if (maxCostUsd !== undefined && totals.cost >= maxCostUsd) return reached("cost", maxCostUsd, totals.cost);
      const elapsed = now() - startedAt;
      if (maxWallTimeMs !== undefined && elapsed >= maxWallTimeMs) return reached("time", maxWallTimeMs, elapsed);
      return undefined;
    },
    reset() {
      spend.clear();
      totals.turns = 0;
      totals.tokens = 0;
      totals.cost = 0;
      startedAt = now();
    },
    begin(agent) {
      const entry = recordOf(agent);
      delete entry.endedAt;
      return () => {
        entry.endedAt = now();
      };
    },
    breakdown: () =>
      [...spend.values()].map(({ startedAt: began, endedAt, ...entry }) => ({
        ...entry,
        durationMs: (endedAt ?? now()) - began,
      })),
    total: () => ({ ...totals, durationMs: now() - startedAt }),
    raise(next) {
      for (const [key, value] of Object.entries(next) as [keyof AgentBudgets, number | undefined][]) {
        if (value === undefined) delete current[key];
        else current[key] = value;
      }
    },
    limits: current,
  };
}

/** Where each limit is set, for the sentence that says how to go on. */
const raisedBy: Record<BudgetName, string> = {
  turns: "--max-turns or the maxTurns setting",
  cost: "--max-cost or the maxCost setting",
  tokens: "the maxTotalTokens setting",
  time: "the maxWallTimeMs setting",
};

/**
 * The next step after `budget` stopped a run, for the user (never the model, which cannot raise
 * it): the flag or setting that raises it, and that the session can be continued.
 */
export function describeBudgetRaise(budget: BudgetName): string {
  return `Raise it with ${raisedBy[budget]}, then continue the session (gyre -c, or another message) to go on.`;
}

function reached(budget: BudgetName, limit: number, used: number): TreeBudgetReached {
  const shown = (value: number) =>
    budget === "cost" ? `$${value.toFixed(4)}` : budget === "time" ? `${Math.round(value / 1000)} s` : String(value);
  const noun = { turns: "turn", tokens: "token", cost: "spend", time: "wall time" }[budget];
  return {
    budget,
    limit,
    used,
    reason: `The ${noun} budget of the agent tree is reached (${shown(used)} of ${shown(limit)}).`,
  };
}

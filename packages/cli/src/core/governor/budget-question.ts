/**
 * The interactive pause at a reached budget (docs/design/delegation.md): instead of ending the run, gyre asks
 * the user whether to raise the limit (to double, or by an amount typed) or stop. Headless modes
 * never ask: their run ends with reason `budget`.
 */
import type { AgentBudgets, BudgetName } from "@gyre/agent";
import type { TreeBudgetReached } from "../subagents/tree-budget.js";
import type { UserInterface } from "../user-interface.js";

/** Asks what to do at `reached`: the raised limits to go on with, or undefined to stop. */
export type BudgetQuestion = (
  reached: TreeBudgetReached,
  signal: AbortSignal,
) => Promise<Partial<AgentBudgets> | undefined>;

const limitKeys: Record<BudgetName, keyof AgentBudgets> = {
  turns: "maxTurns",
  tokens: "maxTotalTokens",
  cost: "maxCostUsd",
  time: "maxWallTimeMs",
};

const units: Record<BudgetName, { noun: string; example: string }> = {
  turns: { noun: "turn", example: "e.g. 10 turns" },
  tokens: { noun: "token", example: "e.g. 50000 or 50k tokens" },
  cost: { noun: "spend", example: "e.g. 0.50 for $0.50" },
  time: { noun: "wall-time", example: "e.g. 90s, 5m or 1h" },
};

/** Creates the question asked through `ui` (its select and input dialogs); undefined (stop) when nobody can answer. */
export function createBudgetQuestion(ui: UserInterface): BudgetQuestion {
  return async (reached, signal) => {
    // Read at the pause: the terminal's dialogs attach after start-up.
    if (!ui.interactive) return undefined;
    const { noun, example } = units[reached.budget];
    const doubled = reached.limit * 2;
    const options = [
      `Raise the ${noun} budget to ${formatLimit(reached.budget, doubled)} and go on`,
      "Raise it by an amount I type",
      "Stop here",
    ];
    for (;;) {
      const choice = await ui.select({ title: `${reached.reason} Raise it and go on?`, options, signal });
      if (choice === options[0]) return { [limitKeys[reached.budget]]: doubled };
      if (choice !== options[1]) return undefined;
      const typed = await ui.input({ title: `Raise the ${noun} budget by how much?`, placeholder: example, signal });
      if (typed === undefined || signal.aborted) return undefined;
      const amount = parseBudgetAmount(reached.budget, typed);
      if (amount.ok) return { [limitKeys[reached.budget]]: reached.limit + amount.value };
      ui.notify(amount.error, "warning");
    }
  };
}

/** Reads an amount typed for `budget` (turns, tokens with k/m, dollars, or a time with s/m/h); always positive. */
export function parseBudgetAmount(
  budget: BudgetName,
  text: string,
): { ok: true; value: number } | { ok: false; error: string } {
  const match = /^\s*\$?\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const number = match === null ? Number.NaN : Number(match[1]);
  const suffix = (match?.[2] ?? "").toLowerCase();
  const scale = scaleOf(budget, suffix);
  const value = number * (scale ?? Number.NaN);
  if (!Number.isFinite(value) || value <= 0 || (budget === "turns" && !Number.isInteger(value))) {
    return {
      ok: false,
      error: `"${text.trim()}" is not an amount to raise the ${units[budget].noun} budget by (${units[budget].example}).`,
    };
  }
  return { ok: true, value: budget === "tokens" ? Math.round(value) : value };
}

function scaleOf(budget: BudgetName, suffix: string): number | undefined {
  switch (budget) {
    case "turns":
      return ["", "turn", "turns"].includes(suffix) ? 1 : undefined;
    case "tokens":
      return { "": 1, tokens: 1, k: 1_000, m: 1_000_000 }[suffix];
    case "cost":
      return ["", "usd"].includes(suffix) ? 1 : undefined;
    case "time":
      return { "": 1_000, s: 1_000, m: 60_000, min: 60_000, h: 3_600_000 }[suffix];
    default: {
      const never: never = budget;
      return never;
    }
  }
}

function formatLimit(budget: BudgetName, value: number): string {
  if (budget === "cost") return `$${value.toFixed(2)}`;
  if (budget === "time") return `${Math.round(value / 1000)} s`;
  return `${value} ${budget}`;
}

import type { AgentRunResult } from "@gyre/agent";
import type { AgentSessionOptions } from "../agent-session-options.js";

/**
 * At a reached tree budget, asks the user (when someone can answer) whether to raise it; true
 * when raised, so the same run goes on. The agent's own per-run limits rise with the tree's. The
 * main agent and its subagents share one question (see `Governor.pauseAtBudget`).
 */
export async function raiseBudgetIfAsked(
  options: Pick<AgentSessionOptions, "governor" | "askBudget" | "budgets">,
  reason: AgentRunResult["reason"],
  signal: AbortSignal,
  notice: (text: string) => void,
): Promise<boolean> {
  const { governor, askBudget, budgets } = options;
  if (governor === undefined || askBudget === undefined || governor.budgetReached(reason) === undefined) return false;
  return governor.pauseAtBudget(askBudget, signal, (raised, reached) => {
    if (budgets !== undefined) Object.assign(budgets, raised);
    notice(`The ${reached.budget} budget was raised; the run goes on.`);
  });
}

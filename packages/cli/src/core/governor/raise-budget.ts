import type { AgentRunResult } from "@gyre/agent";
import type { AgentSessionOptions } from "../agent-session-options.js";

/**
 * At a reached tree budget, asks the user (when someone can answer) whether to raise it; true
 * when raised, so the same run goes on. The agent's own per-run limits rise with the tree's.
 */
export async function raiseBudgetIfAsked(
  options: Pick<AgentSessionOptions, "governor" | "askBudget" | "budgets">,
  reason: AgentRunResult["reason"],
  signal: AbortSignal,
  notice: (text: string) => void,
): Promise<boolean> {
  const { governor, askBudget, budgets } = options;
  const reached = governor?.budgetReached(reason);
  if (governor === undefined || askBudget === undefined || reached === undefined) return false;
  const raised = await askBudget(reached, signal);
  if (raised === undefined || signal.aborted) return false;
  governor.raise(raised);
  if (budgets !== undefined) Object.assign(budgets, raised);
  notice(`The ${reached.budget} budget was raised; the run goes on.`);
  return true;
}

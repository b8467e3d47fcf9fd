/**
 * Runs one subagent: its own Agent (own context, system prompt, tools, model), charged to the
 * tree's budget, stopped by the parent's abort, its messages written to its own journal, its
 * events handed to the caller. Never throws for a failed run: the outcome says what happened.
 */

import type { AgentMessage } from "@gyre/agent";
import { Agent, type AgentEndReason, type AgentEvent, type AgentLoopConfig, type AnyAgentTool } from "@gyre/agent";
import type { AssistantMessage, Model, ThinkingLevel, Usage } from "@gyre/ai";
import { answerText } from "../answer-text.js";
import { addUsage, createUsageTotals, taskUsageOf } from "./subagent-usage.js";
import type { TreeBudget, TreeBudgetReached } from "./tree-budget.js";

/** Where a subagent's messages go (its own session file); `path` is linked from the parent's entry. */
export type SubagentJournal = { path?: string; append(message: AgentMessage): void; close?(): Promise<void> };

export type SubagentRun = {
  /** Name in the budget breakdown and in status lines, e.g. "explore#2". */
  label: string;
  prompt: string;
  systemPrompt: string;
  model: Model;
  thinkingLevel?: ThinkingLevel;
  tools: AnyAgentTool[];
  budget: TreeBudget;
  signal: AbortSignal;
  journal?: SubagentJournal;
  onEvent?: (event: AgentEvent) => void;
  loop?: Pick<AgentLoopConfig, "streamFn" | "getApiKey" | "streamOptions" | "beforeToolCall" | "afterToolCall">;
  /**
   * At a reached tree budget, pauses the whole tree and asks whether to go on (see
   * `Governor.pauseAtBudget`); true when the limit was raised, so this subagent goes on where it
   * stopped. Without it, or on a "stop", the subagent ends with reason `budget`.
   */
  pauseAtBudget?: (signal: AbortSignal) => Promise<boolean>;
};

export type SubagentOutcome = {
  text: string;
  reason: AgentEndReason;
  turns: number;
  toolCalls: number;
  tokens: number;
  cost: number;
  errorMessage?: string;
  budgetReached?: TreeBudgetReached;
  sessionFile?: string;
  /** Token and cost totals of its model calls and of the subagents it started (for the session's totals). */
  usage: Usage;
};

/** Runs the subagent to its end and reports its final answer and what it spent. */
export async function runSubagent(run: SubagentRun): Promise<SubagentOutcome> {
  const spent = { turns: 0, toolCalls: 0, tokens: 0, cost: 0, usage: createUsageTotals() };
  const agent = new Agent({
    ...run.loop,
    model: run.model,
    systemPrompt: run.systemPrompt,
    ...(run.thinkingLevel === undefined ? {} : { thinkingLevel: run.thinkingLevel }),
    tools: run.tools,
    shouldStopAfterTurn: async (turn, signal) => {
      if (run.budget.check() === undefined) return false;
      // A final answer is kept: the parent pauses (or stops) at its own turn's end.
      if (turn.toolResults.length === 0) return false;
      return !(await run.pauseAtBudget?.(signal));
    },
    onListenerError: () => {},
  });
  agent.subscribe((event) => {
    if (event.type === "message_end") {
      run.journal?.append(event.message);
      if (event.message.role === "assistant") charge(event.message);
      // What its own subagents spent was charged to the tree by them; it counts in its totals.
      if (event.message.role === "toolResult") addUsage(spent.usage, taskUsageOf(event.message));
    }
    if (event.type === "tool_execution_start") spent.toolCalls++;
    run.onEvent?.(event);
  });
  const charge = (message: AssistantMessage) => {
    run.budget.charge(run.label, message);
    spent.turns++;
    spent.tokens += message.usage.totalTokens;
    spent.cost += message.usage.cost.total;
    addUsage(spent.usage, message.usage);
  };
  const abort = () => agent.abort();
  run.signal.addEventListener("abort", abort, { once: true });
  const stopClock = run.budget.begin(run.label);
  try {
    if (run.signal.aborted) return { text: "", reason: "aborted", ...spent, ...file(run) };
    const result = await agent.prompt(run.prompt);
    const last = [...result.messages]
      .reverse()
      .find((message): message is AssistantMessage => message.role === "assistant");
    const budgetReached = result.reason === "stop_after_turn" ? run.budget.check() : undefined;
    return {
      text: last === undefined ? "" : answerText(last),
      reason: budgetReached === undefined ? result.reason : "budget",
      ...spent,
      ...(last?.errorMessage === undefined ? {} : { errorMessage: last.errorMessage }),
      ...(budgetReached === undefined ? {} : { budgetReached }),
      ...file(run),
    };
  } finally {
    stopClock();
    run.signal.removeEventListener("abort", abort);
    await run.journal?.close?.();
  }
}

function file(run: SubagentRun): { sessionFile?: string } {
  return run.journal?.path === undefined ? {} : { sessionFile: run.journal.path };
}

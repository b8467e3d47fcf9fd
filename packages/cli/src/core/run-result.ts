/**
 * The summary of one headless request (docs/design/delegation.md): the JSON mode's last line
 * `{"type":"result", reason, turns, usage, cost, durationMs, sessionId, sessionFile, text}`, plus
 * which budget or loop ended it and what each agent of the tree spent. Also what the fleet and
 * `gyre mcp serve` report.
 */
import type { AgentMessage } from "@gyre/agent";
import { createEmptyUsage, type Usage } from "@gyre/ai";
import type { AgentSession, SessionRunResult } from "./agent-session.js";
import type { SessionEndReason } from "./governor/governor.js";
import type { AgentSpend } from "./subagents/tree-budget.js";

export type RunResultLine = {
  type: "result";
  reason: SessionEndReason;
  /** Model calls of the main agent in this request. */
  turns: number;
  /** Token use of the main agent's calls in this request. */
  usage: Usage;
  /** USD spent by the whole tree (main agent and subagents). */
  cost: number;
  durationMs: number;
  sessionId: string;
  sessionFile: string | null;
  /** The final answer (the structured value's JSON when an output schema was given). */
  text: string;
  /** The sentence of the budget or loop that ended the run. */
  stoppedBy?: string;
  /** Per-agent spend when subagents ran. */
  agents?: AgentSpend[];
  /** The answer parsed and validated against `--output-schema`. */
  output?: unknown;
  /** An empty, reasoning-only or cut answer, said in words. */
  warning?: string;
};

/** Builds the result line of a finished request. */
export function buildRunResult(options: {
  session: AgentSession;
  result: SessionRunResult;
  startedAt: number;
  text?: string;
  output?: unknown;
}): RunResultLine {
  const { session, result } = options;
  const state = session.state;
  const usage = sumUsage(result.messages);
  const spend = session.getSpend();
  const stoppedBy =
    result.reason === "budget" ? state.budgetReason : result.reason === "loop" ? state.loopReason : undefined;
  const agents = spend?.agents ?? [];
  return {
    type: "result",
    reason: result.reason,
    turns: result.messages.filter((message) => message.role === "assistant").length,
    usage,
    cost: Math.max(spend?.total.cost ?? 0, usage.cost.total),
    durationMs: Date.now() - options.startedAt,
    sessionId: state.sessionId,
    sessionFile: state.sessionFile ?? null,
    text: options.text ?? session.getLastAssistantText() ?? "",
    ...(stoppedBy === undefined ? {} : { stoppedBy }),
    ...(agents.length > 1 ? { agents } : {}),
    ...(options.output === undefined ? {} : { output: options.output }),
  };
}

function sumUsage(messages: readonly AgentMessage[]): Usage {
  const total = createEmptyUsage();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    total.input += message.usage.input;
    total.output += message.usage.output;
    total.cacheRead += message.usage.cacheRead;
    total.cacheWrite += message.usage.cacheWrite;
    total.totalTokens += message.usage.totalTokens;
    total.cost.input += message.usage.cost.input;
    total.cost.output += message.usage.cost.output;
    total.cost.cacheRead += message.usage.cost.cacheRead;
    total.cost.cacheWrite += message.usage.cost.cacheWrite;
    total.cost.total += message.usage.cost.total;
  }
  return total;
}

import type { AgentMessage } from "@gyre/agent";
import type { Usage } from "@gyre/ai";
import { contextTokensFromUsage } from "./compaction/estimate-tokens.js";
import type { SessionEntry } from "./session/types.js";
import { taskUsageOf } from "./subagents/subagent-usage.js";

/** Token totals of every model call made. */
export type TokenTotals = { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };

/** Token and cost totals of a session, and counts over its current context. */
export type SessionStats = {
  userMessages: number;
  assistantMessages: number;
  toolCalls: number;
  toolResults: number;
  /** Every model call of the session: every branch, summaries included; never goes down. */
  tokens: TokenTotals;
  /** USD, over the same calls as `tokens`. */
  cost: number;
  /** Tokens the next call sends: the last call's usage, or an estimate right after compaction. */
  contextTokens: number;
};

/**
 * Running totals of what a session's model calls used. Money spent is never forgotten: answers
 * on abandoned branches, answers a compaction replaced and the summary calls themselves all
 * count, so the figure only grows.
 */
export class UsageLedger {
  readonly tokens: TokenTotals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  cost = 0;

  /** The totals of every entry of a session file, whichever branch it is on. */
  static fromEntries(entries: readonly SessionEntry[]): UsageLedger {
    const ledger = new UsageLedger();
    for (const entry of entries) {
      if (entry.type === "message" && entry.message.role === "assistant") ledger.add(entry.message.usage);
      // A subagent's calls are in its own journal; its task result carries their totals.
      else if (entry.type === "message") ledger.add(taskUsageOf(entry.message));
      else if (entry.type === "compaction") ledger.add(entry.usage);
    }
    return ledger;
  }

  add(usage: Usage | undefined): void {
    if (!usage) return;
    this.tokens.input += usage.input;
    this.tokens.output += usage.output;
    this.tokens.cacheRead += usage.cacheRead;
    this.tokens.cacheWrite += usage.cacheWrite;
    this.tokens.total += usage.totalTokens;
    this.cost += usage.cost.total;
  }
}

/**
 * Counts over `messages` (the current context). Totals come from `ledger` when given, else
 * from `messages` alone (subagents' spend through their task results), plus `running` (what
 * subagents still at work spent); `contextTokens` from the option, else the last reported usage.
 */
export function computeSessionStats(
  messages: readonly AgentMessage[],
  options: { ledger?: UsageLedger; contextTokens?: number; running?: Usage } = {},
): SessionStats {
  const own = options.ledger ? undefined : new UsageLedger();
  const stats: SessionStats = {
    userMessages: 0,
    assistantMessages: 0,
    toolCalls: 0,
    toolResults: 0,
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    cost: 0,
    contextTokens: 0,
  };
  for (const message of messages) {
    if (message.role === "user") stats.userMessages++;
    else if (message.role === "toolResult") {
      stats.toolResults++;
      own?.add(taskUsageOf(message));
    } else if (message.role === "assistant") {
      stats.assistantMessages++;
      for (const block of message.content) if (block.type === "toolCall") stats.toolCalls++;
      own?.add(message.usage);
      const seen = contextTokensFromUsage(message.usage);
      if (seen > 0) stats.contextTokens = seen;
    }
  }
  const ledger = options.ledger ?? own;
  if (ledger) {
    stats.tokens = { ...ledger.tokens };
    stats.cost = ledger.cost;
  }
  // Subagents still running: their task results, which will carry this, have not come yet.
  if (options.running) {
    stats.tokens.input += options.running.input;
    stats.tokens.output += options.running.output;
    stats.tokens.cacheRead += options.running.cacheRead;
    stats.tokens.cacheWrite += options.running.cacheWrite;
    stats.tokens.total += options.running.totalTokens;
    stats.cost += options.running.cost.total;
  }
  if (options.contextTokens !== undefined) stats.contextTokens = options.contextTokens;
  return stats;
}

/** The text of the last assistant message, or undefined. */
export function getLastAssistantText(messages: readonly AgentMessage[]): string | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== "assistant") continue;
    return message.content
      .filter((block) => block.type === "text")
      .map((block) => block.text)
      .join("");
  }
  return undefined;
}

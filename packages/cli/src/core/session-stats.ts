import type { AgentMessage } from "@gyre/agent";
import { contextTokensFromUsage } from "./compaction/estimate-tokens.js";

/** Token and cost totals over a conversation's assistant messages. */
export type SessionStats = {
  userMessages: number;
  assistantMessages: number;
  toolCalls: number;
  toolResults: number;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  /** USD. */
  cost: number;
  /** Tokens the last model call saw (input + cache), a measure of context use. */
  contextTokens: number;
};

/** Sums usage over `messages`. Linear; no copies. */
export function computeSessionStats(messages: readonly AgentMessage[]): SessionStats {
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
    else if (message.role === "toolResult") stats.toolResults++;
    else if (message.role === "assistant") {
      stats.assistantMessages++;
      for (const block of message.content) if (block.type === "toolCall") stats.toolCalls++;
      const usage = message.usage;
      stats.tokens.input += usage.input;
      stats.tokens.output += usage.output;
      stats.tokens.cacheRead += usage.cacheRead;
      stats.tokens.cacheWrite += usage.cacheWrite;
      stats.tokens.total += usage.totalTokens;
      stats.cost += usage.cost.total;
      const seen = contextTokensFromUsage(usage);
      if (seen > 0) stats.contextTokens = seen;
    }
  }
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

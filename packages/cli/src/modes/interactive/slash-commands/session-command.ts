import type { SessionStats } from "../../../core/session-stats.js";
import { formatTokens } from "../components/footer-view.js";
import { countOf } from "../count-of.js";
import { style } from "../theme.js";
import type { SlashCommand } from "./types.js";

/**
 * The messages the model sees now, labelled so: after a compaction they are fewer than the session
 * had, while its tokens and cost cover every call.
 */
export function describeContextMessages(stats: SessionStats): string {
  const { userMessages, assistantMessages, toolCalls } = stats;
  return `${countOf(userMessages, "user message")}, ${countOf(assistantMessages, "assistant message")}, ${countOf(toolCalls, "tool call")}`;
}

/** /session: where this session lives and what it has used, and how to come back to it. */
export const sessionCommand: SlashCommand = {
  name: "session",
  description: "Show this session's file, id, tokens and cost",
  allowWhileRunning: true,
  run: (_args, context) => {
    const { session } = context;
    const stats = session.getStats();
    const rows: [string, string][] = [
      ["id", session.state.sessionId],
      ["file", session.state.sessionFile ?? "(not written yet: no message so far)"],
      ["in context", describeContextMessages(stats)],
      ["tokens", `↑${formatTokens(stats.tokens.input)} ↓${formatTokens(stats.tokens.output)}`],
      ["cost", `$${stats.cost.toFixed(4)}`],
      ["context", `${formatTokens(stats.contextTokens)} tokens`],
      ["resume", `gyre --session ${session.state.sessionId}`],
    ];
    context.print(rows.map(([label, value]) => `${style.gray(label.padEnd(12))}${value}`).join("\n"));
  },
};

import { formatTokens } from "../components/footer-view.js";
import { style } from "../theme.js";
import type { SlashCommand } from "./types.js";

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
      ["messages", `${stats.userMessages} user, ${stats.assistantMessages} assistant, ${stats.toolCalls} tool calls`],
      ["tokens", `↑${formatTokens(stats.tokens.input)} ↓${formatTokens(stats.tokens.output)}`],
      ["cost", `$${stats.cost.toFixed(4)}`],
      ["context", `${formatTokens(stats.contextTokens)} tokens`],
      ["resume", `gyre --session ${session.state.sessionId}`],
    ];
    context.print(rows.map(([label, value]) => `${style.gray(label.padEnd(10))}${value}`).join("\n"));
  },
};

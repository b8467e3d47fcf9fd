import { formatTokens } from "../components/footer-view.js";
import { style } from "../theme.js";
import type { SlashCommand } from "./types.js";

/** /cost: tokens and USD cost of this session so far. */
export const costCommand: SlashCommand = {
  name: "cost",
  description: "Show tokens and cost of this session",
  allowWhileRunning: true,
  run: (_args, context) => {
    const { stats, model } = context.session.state;
    const window = model.contextWindow;
    const rows: [string, string][] = [
      ["input", formatTokens(stats.tokens.input)],
      ["output", formatTokens(stats.tokens.output)],
      ["cache read", formatTokens(stats.tokens.cacheRead)],
      ["cache write", formatTokens(stats.tokens.cacheWrite)],
      ["cost", `$${stats.cost.toFixed(4)}`],
      ["context", `${formatTokens(stats.contextTokens)} of ${formatTokens(window)}`],
      ["messages", `${stats.userMessages} user, ${stats.assistantMessages} assistant, ${stats.toolCalls} tool calls`],
    ];
    context.print(rows.map(([label, value]) => `${style.gray(label.padEnd(12))}${value}`).join("\n"));
  },
};

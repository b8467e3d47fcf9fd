import type { AgentSpend } from "../../../core/subagents/tree-budget.js";
import { formatTokens } from "../components/footer-view.js";
import { style } from "../theme.js";
import { describeContextMessages } from "./session-command.js";
import type { SlashCommand } from "./types.js";

/** One line per agent of the tree: turns, tokens, USD and wall time, with a total line under them. */
export function formatAgentSpend(agents: readonly AgentSpend[]): string[] {
  const row = (name: string, spend: Omit<AgentSpend, "agent">) =>
    `${name.padEnd(16)}${String(spend.turns).padStart(6)}${formatTokens(spend.tokens).padStart(9)}${`$${spend.cost.toFixed(4)}`.padStart(10)}${formatSeconds(spend.durationMs).padStart(9)}`;
  const total = agents.reduce(
    (sum, spend) => ({
      turns: sum.turns + spend.turns,
      tokens: sum.tokens + spend.tokens,
      cost: sum.cost + spend.cost,
      durationMs: Math.max(sum.durationMs, spend.durationMs),
    }),
    { turns: 0, tokens: 0, cost: 0, durationMs: 0 },
  );
  return [
    style.gray(
      `${"agent".padEnd(16)}${"turns".padStart(6)}${"tokens".padStart(9)}${"cost".padStart(10)}${"time".padStart(9)}`,
    ),
    ...agents.map((spend) => row(spend.agent, spend)),
    style.gray(row("tree", total)),
  ];
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** /cost: tokens and USD cost of this session so far, and what each agent of the last request's tree spent. */
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
      ["in context", describeContextMessages(stats)],
    ];
    const lines = rows.map(([label, value]) => `${style.gray(label.padEnd(12))}${value}`);
    const agents = context.session.getSpend()?.agents ?? [];
    if (agents.some((spend) => spend.agent !== "main")) lines.push("", ...formatAgentSpend(agents));
    context.print(lines.join("\n"));
  },
};

import type { AgentUsageNode } from "../../../core/usage/session-tree-usage.js";
import type { UsageTotals } from "../../../core/usage/usage-report.js";
import { formatTokens } from "../components/footer-view.js";
import { style } from "../theme.js";
import type { SlashCommand } from "./types.js";

const TURNS_SHOWN = 10;

function cells(totals: Omit<UsageTotals, "totalTokens">): string {
  const prompt = totals.input + totals.cacheRead + totals.cacheWrite;
  const hit = prompt === 0 ? "-" : `${((totals.cacheRead / prompt) * 100).toFixed(0)}%`;
  return `${String(totals.calls).padStart(6)}${formatTokens(totals.input).padStart(8)}${formatTokens(totals.output).padStart(8)}${formatTokens(totals.cacheRead).padStart(8)}${formatTokens(totals.cacheWrite).padStart(8)}${hit.padStart(6)}${`$${totals.cost.toFixed(4)}`.padStart(10)}`;
}

const header = style.gray(
  `${"".padEnd(22)}${"calls".padStart(6)}${"in".padStart(8)}${"out".padStart(8)}${"c.read".padStart(8)}${"c.write".padStart(8)}${"hit".padStart(6)}${"cost".padStart(10)}`,
);

function treeLines(node: AgentUsageNode, depth: number): string[] {
  const name = `${"  ".repeat(depth)}${node.agent}`.slice(0, 21).padEnd(22);
  return [`${name}${cells(node.tree)}`, ...node.children.flatMap((child) => treeLines(child, depth + 1))];
}

/** The lines /usage prints for a session's usage tree. */
export function formatUsageTree(root: AgentUsageNode): string[] {
  const turns = root.calls.slice(-TURNS_SHOWN);
  const first = root.calls.length - turns.length + 1;
  const turnLines = turns.map(
    (call, index) =>
      `${`turn ${first + index}`.padEnd(8)}${call.model.slice(0, 13).padEnd(14)}${cells({ calls: 1, ...call.usage, cost: call.usage.cost.total, cacheHitRatio: 0 })}`,
  );
  return [
    style.bold("Agents (each with the subagents under it)"),
    header,
    ...treeLines(root, 0),
    "",
    style.bold(
      `Turns of the main agent${root.calls.length > TURNS_SHOWN ? ` (last ${TURNS_SHOWN} of ${root.calls.length})` : ""}`,
    ),
    header,
    ...turnLines,
  ];
}

/** /usage: tokens, cache hits and cost of this session, per agent of its tree and per turn (`gyre stats` covers every session). */
export const usageCommand: SlashCommand = {
  name: "usage",
  description: "Show tokens, cache hits and cost per agent and per turn of this session",
  allowWhileRunning: true,
  run: async (_args, context) => {
    const path = context.session.state.sessionFile;
    if (path === undefined) {
      context.notify("No usage yet: this session has not been written (no message so far).", "info");
      return;
    }
    await context.session.flush();
    const { readSessionTreeUsage } = await import("../../../core/usage/session-tree-usage.js");
    const root = await readSessionTreeUsage(path).catch((error: unknown) => error as Error);
    if (root instanceof Error) {
      context.notify(`Cannot read this session's usage from ${path}: ${root.message}.`, "error");
      return;
    }
    context.print(formatUsageTree(root).join("\n"));
  },
};

/**
 * `gyre stats [--since 7d] [--json] [--html out.html]`: what the sessions on disk used and cost,
 * by model, day, project and agent, and how much came from cache (docs/usage-and-telemetry.md).
 * Exit 0, or 2 for bad usage; an unwritable --html path is exit 1 with one sentence.
 */
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { getSessionsDir } from "../../core/config/paths.js";
import { collectUsage, parseSince } from "../../core/usage/collect-usage.js";
import type { UsageGroup, UsageReport } from "../../core/usage/usage-report.js";
import type { CommandIo } from "../index.js";
import { parseCommandWords } from "../usage-error.js";
import { formatCost, formatCount, formatRatio } from "./format-usage.js";
import { renderStatsHtml } from "./stats-html.js";

export const statsUsage = `Usage:
  gyre stats [--since <span|date>] [--json] [--html <file>]

What the sessions in $GYRE_HOME/sessions used: model calls, tokens in and out, cache read and
write, the cache-hit ratio and the cost in USD, in total, per turn (one model call), and by
model, by day (UTC), by project and by agent (the main agent, or each subagent by name).

  --since <span|date>  only calls since then: 30m, 12h, 7d, 2w, or a date such as 2026-11-01
  --json               the report as one JSON object on stdout
  --html <file>        also write a page with charts (cost and tokens per day, cache-hit ratio);
                       it needs no network to view
`;

export async function runStatsCommand(args: string[], io: CommandIo): Promise<number> {
  const parsed = parseCommandWords("stats", args, {
    since: { type: "string" },
    json: { type: "boolean" },
    html: { type: "string" },
  });
  if (!parsed.ok) {
    io.stderr.write(`gyre: ${parsed.error}\n`);
    return 2;
  }
  const { values, positionals } = parsed.value;
  if (positionals.length > 0) {
    io.stderr.write(`gyre: stats takes no argument ${positionals[0]}; see gyre stats --help.\n`);
    return 2;
  }
  let since: Date | undefined;
  if (values.since !== undefined) {
    since = parseSince(values.since);
    if (since === undefined) {
      io.stderr.write(
        `gyre: --since needs a span such as 7d, 12h or 2w, or a date such as 2026-11-01; got "${values.since}".\n`,
      );
      return 2;
    }
  }
  const report = await collectUsage({ sessionsDir: getSessionsDir(io.gyreHome), ...(since ? { since } : {}) });
  if (values.html !== undefined) {
    const path = resolve(io.cwd, values.html);
    try {
      await writeFile(path, renderStatsHtml(report));
    } catch (error) {
      io.stderr.write(`gyre: cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.\n`);
      return 1;
    }
    if (!values.json) io.stderr.write(`Wrote ${path}\n`);
  }
  io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatStats(report));
  return 0;
}

const columns = ["calls", "input", "output", "cache read", "cache write", "hit", "cost"];

function row(label: string, group: Omit<UsageGroup, "key">, width: number): string {
  const cells = [
    String(group.calls),
    formatCount(group.input),
    formatCount(group.output),
    formatCount(group.cacheRead),
    formatCount(group.cacheWrite),
    formatRatio(group.cacheHitRatio),
    formatCost(group.cost),
  ];
  return `${label.padEnd(width)}${cells.map((cell) => cell.padStart(12)).join("")}\n`;
}

function table(title: string, groups: readonly UsageGroup[], limit = 20): string {
  if (groups.length === 0) return "";
  const shown = groups.slice(0, limit);
  const width = Math.min(48, Math.max(title.length, ...shown.map((group) => group.key.length))) + 2;
  const label = (key: string) => (key.length > width - 2 ? `…${key.slice(-(width - 3))}` : key);
  const more = groups.length > limit ? `(${groups.length - limit} more; --json lists all)\n` : "";
  return `\n${title.padEnd(width)}${columns.map((column) => column.padStart(12)).join("")}\n${shown.map((group) => row(label(group.key), group, width)).join("")}${more}`;
}

/** The report as the terminal shows it. */
export function formatStats(report: UsageReport): string {
  const { totals, perTurn } = report;
  const period = report.since === undefined ? "all sessions" : `since ${report.since}`;
  if (totals.calls === 0)
    return `No model calls ${report.since === undefined ? "in any session" : period} (${report.sessions} sessions read).\n`;
  const head = [
    `Usage, ${period}: ${report.sessions} sessions, ${report.subagentSessions} subagent sessions, ${totals.calls} model calls`,
    `  cost        ${formatCost(totals.cost)} (${formatCost(perTurn.cost)} per turn)`,
    `  tokens      ${formatCount(totals.input)} in, ${formatCount(totals.output)} out (${formatCount(perTurn.input)} in, ${formatCount(perTurn.output)} out per turn)`,
    `  cache       ${formatCount(totals.cacheRead)} read, ${formatCount(totals.cacheWrite)} written; ${formatRatio(totals.cacheHitRatio)} of prompt tokens from cache`,
  ].join("\n");
  const damaged = report.unreadableLines > 0 ? `\n${report.unreadableLines} unreadable lines were skipped.\n` : "";
  return `${head}\n${table("model", report.byModel)}${table("day", report.byDay.slice().reverse(), 14)}${table("project", report.byProject, 10)}${table("agent", report.byAgent)}${damaged}`;
}

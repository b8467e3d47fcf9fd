/**
 * The page `gyre stats --html` writes: the totals, charts of cost, tokens and cache-hit ratio per
 * day, and the tables by model, project and agent. One self-contained file (inline SVG and
 * style, no script), so it opens offline. Figures carry `data-stat` for checking against --json.
 */
import type { UsageGroup, UsageReport } from "../../core/usage/usage-report.js";
import { barChart, escapeHtml, ratioChart, reportStyle } from "../../report/svg-charts.js";
import { formatCost, formatCount, formatRatio } from "./format-usage.js";

function groupTable(title: string, id: string, groups: readonly UsageGroup[]): string {
  if (groups.length === 0) return "";
  const head = ["", "calls", "input", "output", "cache read", "cache write", "cache hit", "cost"];
  const rows = groups
    .map(
      (group) =>
        `<tr data-key="${escapeHtml(group.key)}"><td>${escapeHtml(group.key)}</td><td>${group.calls}</td><td>${formatCount(group.input)}</td><td>${formatCount(group.output)}</td><td>${formatCount(group.cacheRead)}</td><td>${formatCount(group.cacheWrite)}</td><td>${formatRatio(group.cacheHitRatio)}</td><td data-cost="${group.cost}">${formatCost(group.cost)}</td></tr>`,
    )
    .join("");
  return `<h2>${escapeHtml(title)}</h2><table id="${id}"><thead><tr>${head.map((cell) => `<th>${cell}</th>`).join("")}</tr></thead><tbody>${rows}</tbody></table>`;
}

/** The whole page for `report`. */
export function renderStatsHtml(report: UsageReport): string {
  const { totals } = report;
  const days = report.byDay.map((day) => day.key);
  const period = report.since === undefined ? "all sessions" : `since ${report.since}`;
  const facts: [string, string, string][] = [
    ["sessions", "sessions", String(report.sessions)],
    ["subagentSessions", "subagent sessions", String(report.subagentSessions)],
    ["calls", "model calls", String(totals.calls)],
    ["cost", "cost", formatCost(totals.cost)],
    ["input", "input tokens", String(totals.input)],
    ["output", "output tokens", String(totals.output)],
    ["cacheRead", "cache read", String(totals.cacheRead)],
    ["cacheWrite", "cache write", String(totals.cacheWrite)],
    ["cacheHitRatio", "cache-hit ratio", formatRatio(totals.cacheHitRatio)],
  ];
  const charts =
    days.length === 0
      ? "<p>No model calls in this period.</p>"
      : [
          barChart({
            id: "chart-cost",
            title: "Cost per day (USD)",
            labels: days,
            format: formatCost,
            series: [{ name: "cost", colour: "#3b6fd4", values: report.byDay.map((day) => day.cost) }],
          }),
          barChart({
            id: "chart-tokens",
            title: "Tokens per day",
            labels: days,
            format: formatCount,
            series: [
              { name: "input", colour: "#3b6fd4", values: report.byDay.map((day) => day.input) },
              { name: "output", colour: "#e08a2c", values: report.byDay.map((day) => day.output) },
              { name: "cache read", colour: "#4aa96c", values: report.byDay.map((day) => day.cacheRead) },
              { name: "cache write", colour: "#a05bc4", values: report.byDay.map((day) => day.cacheWrite) },
            ],
          }),
          ratioChart({
            id: "chart-cache",
            title: "Cache-hit ratio per day",
            labels: days,
            format: formatRatio,
            colour: "#4aa96c",
            values: report.byDay.map((day) => day.cacheHitRatio),
          }),
        ].join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gyre stats</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>${reportStyle}</style></head>
<body><h1>gyre usage, ${escapeHtml(period)}</h1>
<dl class="totals">${facts.map(([key, label, value]) => `<dt>${label}</dt><dd data-stat="${key}">${escapeHtml(value)}</dd>`).join("")}</dl>
${charts}
${groupTable("By model", "by-model", report.byModel)}
${groupTable("By project", "by-project", report.byProject)}
${groupTable("By agent", "by-agent", report.byAgent)}
</body></html>
`;
}

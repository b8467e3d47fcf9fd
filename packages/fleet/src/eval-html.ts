/**
 * `gyre eval`'s results.html: per variant the pass rate with its 95 % Wilson interval and the
 * cost, as inline SVG (no script, no network), and the summary table. Figures carry `data-*`
 * attributes matching results.json.
 */
import { barChart, escapeHtml, intervalChart, reportStyle } from "gyre/fleet-support";
import type { EvalVariantSummary } from "./eval-report.js";

const percent = (value: number) => `${(value * 100).toFixed(0)}%`;

/** The page for `summaries`. */
export function renderEvalHtml(summaries: readonly EvalVariantSummary[]): string {
  const labels = summaries.map((summary) => summary.variant);
  const rows = summaries
    .map(
      (summary) =>
        `<tr data-variant="${escapeHtml(summary.variant)}"><td>${escapeHtml(summary.variant)}</td><td data-passed="${summary.passed}">${summary.passed}/${summary.runs}</td><td data-rate="${summary.passRate}">${percent(summary.passRate)} (${percent(summary.interval[0])}–${percent(summary.interval[1])})</td><td>$${summary.costUsd.toFixed(4)}</td><td>${summary.tokens}</td><td>${summary.meanTurns.toFixed(1)}</td><td>${(summary.meanWallMs / 1000).toFixed(1)} s</td><td>${summary.harnessErrors}</td></tr>`,
    )
    .join("");
  const charts =
    summaries.length === 0
      ? "<p>No runs.</p>"
      : [
          intervalChart({
            id: "chart-pass-rate",
            title: "Pass rate per variant (95% Wilson interval)",
            labels,
            format: percent,
            colour: "#3b6fd4",
            values: summaries.map((summary) => ({
              rate: summary.passRate,
              low: summary.interval[0],
              high: summary.interval[1],
            })),
          }),
          barChart({
            id: "chart-cost",
            title: "Cost per variant (USD)",
            labels,
            format: (value) => `$${value.toFixed(4)}`,
            series: [{ name: "cost", colour: "#e08a2c", values: summaries.map((summary) => summary.costUsd) }],
          }),
        ].join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gyre eval</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>${reportStyle}</style></head>
<body><h1>gyre eval results</h1>
${charts}
<table id="variants"><thead><tr><th>variant</th><th>passed</th><th>pass rate (95% CI)</th><th>cost</th><th>tokens</th><th>turns (mean)</th><th>wall (mean)</th><th>harness errors</th></tr></thead><tbody>${rows}</tbody></table>
</body></html>
`;
}

// One table for every item: gyre next to Pi, the ratio, the spread and peak memory.
// A row is { item, unit, gyre?, pi?, versus?, gyreRssMb?, piRssMb?, note? } where gyre/pi are
// summarize() results; a side that was not measured prints "–" rather than a made-up number.
// `versus` names the baseline when it is not Pi (tools compare with bare bash and rg).

const DASH = "–";

/** Formats a number with precision that suits its size (0.42, 4.2, 42, 4200). */
export function formatNumber(value) {
  if (value === undefined || !Number.isFinite(value)) return DASH;
  const size = Math.abs(value);
  if (size >= 100) return value.toFixed(0);
  if (size >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

const withUnit = (value, unit) => (value === undefined ? DASH : `${formatNumber(value)} ${unit}`.trim());
// Figures taken from another script's output have a median only: no spread to show.
const spread = (summary) =>
  summary?.min === undefined ? DASH : `${formatNumber(summary.min)}–${formatNumber(summary.max)}`;

/** gyre ÷ Pi of the medians; below 1 is better for gyre when lower is better (times, bytes). */
export function ratioOf(row) {
  if (!row.gyre || !row.pi || row.pi.median === 0) return undefined;
  return row.gyre.median / row.pi.median;
}

/** The rows as a GitHub-flavoured markdown table. */
export function renderTable(rows) {
  const header = ["item", "gyre (median)", "Pi (median)", "gyre/Pi", "min–max gyre / Pi", "peak RSS gyre / Pi", "note"];
  const lines = [
    `| ${header.join(" | ")} |`,
    `|${header.map((_, i) => (i === 0 || i === 6 ? "---" : "---:")).join("|")}|`,
  ];
  for (const row of rows) {
    const ratio = ratioOf(row);
    const ratioText = ratio === undefined ? DASH : `${formatNumber(ratio)}x`;
    const memory =
      row.gyreRssMb === undefined && row.piRssMb === undefined
        ? DASH
        : `${withUnit(row.gyreRssMb, "MiB")} / ${withUnit(row.piRssMb, "MiB")}`;
    const cells = [
      row.item,
      withUnit(row.gyre?.median, row.unit),
      row.versus && row.pi
        ? `${withUnit(row.pi.median, row.unit)} (${row.versus})`
        : withUnit(row.pi?.median, row.unit),
      ratioText,
      `${spread(row.gyre)} / ${spread(row.pi)}`,
      memory,
      (row.note ?? "").replaceAll("|", "/"),
    ];
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

/**
 * Small charts drawn as inline SVG, so a report page needs no script and no network to view:
 * bars (one series or stacked), a line of ratios, and intervals. Every label is escaped.
 * docs/usage-and-telemetry.md shows where they are used.
 */

/** Text made safe for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export type BarSeries = { name: string; colour: string; values: readonly number[] };

export type ChartOptions = {
  title: string;
  /** The x labels, one per value. */
  labels: readonly string[];
  /** How a value is written on the axis and in tooltips. */
  format(value: number): string;
  /** Marks the chart for tests and styles. */
  id: string;
};

const WIDTH = 720;
const HEIGHT = 240;
const PAD = { left: 64, right: 16, top: 28, bottom: 40 };

function frame(options: ChartOptions, max: number, body: string, legend: string): string {
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const ticks = [0, 0.5, 1]
    .map((share) => {
      const y = PAD.top + plotHeight * (1 - share);
      return `<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y}" y2="${y}" stroke="#ddd"/><text x="${PAD.left - 6}" y="${y + 4}" text-anchor="end">${escapeHtml(options.format(max * share))}</text>`;
    })
    .join("");
  const step = stepOf(options.labels.length);
  const every = Math.max(1, Math.ceil(options.labels.length / 8));
  const xLabels = options.labels
    .map((label, index) =>
      index % every === 0
        ? `<text x="${PAD.left + step * (index + 0.5)}" y="${HEIGHT - PAD.bottom + 16}" text-anchor="middle">${escapeHtml(label)}</text>`
        : "",
    )
    .join("");
  return `<figure class="chart" id="${escapeHtml(options.id)}"><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escapeHtml(options.title)}"><text x="${PAD.left}" y="16" class="title">${escapeHtml(options.title)}</text>${ticks}${body}${xLabels}</svg>${legend}</figure>`;
}

function stepOf(count: number): number {
  return (WIDTH - PAD.left - PAD.right) / Math.max(1, count);
}

function legendOf(series: readonly BarSeries[]): string {
  if (series.length < 2) return "";
  return `<figcaption>${series.map((one) => `<span><i style="background:${one.colour}"></i>${escapeHtml(one.name)}</span>`).join(" ")}</figcaption>`;
}

/** Bars per label; several series stack. Each bar carries its value in `data-value` and a tooltip. */
export function barChart(options: ChartOptions & { series: readonly BarSeries[] }): string {
  const sums = options.labels.map((_, index) => options.series.reduce((sum, one) => sum + (one.values[index] ?? 0), 0));
  const max = Math.max(0, ...sums) || 1;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const step = stepOf(options.labels.length);
  const bars = options.labels
    .map((label, index) => {
      let base = HEIGHT - PAD.bottom;
      return options.series
        .map((one) => {
          const value = one.values[index] ?? 0;
          const height = (value / max) * plotHeight;
          base -= height;
          return `<rect x="${PAD.left + step * index + step * 0.15}" y="${base}" width="${step * 0.7}" height="${height}" fill="${one.colour}" data-series="${escapeHtml(one.name)}" data-label="${escapeHtml(label)}" data-value="${value}"><title>${escapeHtml(`${label} ${one.name}: ${options.format(value)}`)}</title></rect>`;
        })
        .join("");
    })
    .join("");
  return frame(options, max, bars, legendOf(options.series));
}

/** A line of values between 0 and 1 (ratios), with a dot per label. */
export function ratioChart(options: ChartOptions & { values: readonly number[]; colour: string }): string {
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const step = stepOf(options.labels.length);
  const points = options.values.map((value, index) => ({
    x: PAD.left + step * (index + 0.5),
    y: PAD.top + plotHeight * (1 - Math.min(1, Math.max(0, value))),
    value,
    label: options.labels[index] ?? "",
  }));
  const path = points.map((point) => `${point.x},${point.y}`).join(" ");
  const dots = points
    .map(
      (point) =>
        `<circle cx="${point.x}" cy="${point.y}" r="3.5" fill="${options.colour}" data-label="${escapeHtml(point.label)}" data-value="${point.value}"><title>${escapeHtml(`${point.label}: ${options.format(point.value)}`)}</title></circle>`,
    )
    .join("");
  return frame(
    options,
    1,
    `<polyline points="${path}" fill="none" stroke="${options.colour}" stroke-width="2"/>${dots}`,
    "",
  );
}

/** A point with its interval per label (a rate between 0 and 1 and its low and high bounds). */
export function intervalChart(
  options: ChartOptions & { values: readonly { rate: number; low: number; high: number }[]; colour: string },
): string {
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const step = stepOf(options.labels.length);
  const y = (value: number) => PAD.top + plotHeight * (1 - Math.min(1, Math.max(0, value)));
  const marks = options.values
    .map((point, index) => {
      const x = PAD.left + step * (index + 0.5);
      const label = options.labels[index] ?? "";
      return `<line x1="${x}" x2="${x}" y1="${y(point.low)}" y2="${y(point.high)}" stroke="${options.colour}" stroke-width="2"/><line x1="${x - 8}" x2="${x + 8}" y1="${y(point.low)}" y2="${y(point.low)}" stroke="${options.colour}"/><line x1="${x - 8}" x2="${x + 8}" y1="${y(point.high)}" y2="${y(point.high)}" stroke="${options.colour}"/><circle cx="${x}" cy="${y(point.rate)}" r="5" fill="${options.colour}" data-label="${escapeHtml(label)}" data-value="${point.rate}" data-low="${point.low}" data-high="${point.high}"><title>${escapeHtml(`${label}: ${options.format(point.rate)} (${options.format(point.low)}–${options.format(point.high)})`)}</title></circle>`;
    })
    .join("");
  return frame(options, 1, marks, "");
}

/** The page's shared style: readable without any external file. */
export const reportStyle = `body{font:14px system-ui,sans-serif;margin:24px;color:#222;max-width:960px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 10px;border-bottom:1px solid #eee;text-align:right}
td:first-child,th:first-child{text-align:left}
dl.totals{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px}dt{color:#666}dd{margin:0;font-weight:600}
svg{width:100%;max-width:720px;height:auto;font-size:11px}svg .title{font-size:13px;font-weight:600}
figure{margin:12px 0}figcaption span{margin-right:12px}figcaption i{display:inline-block;width:10px;height:10px;margin-right:4px}`;

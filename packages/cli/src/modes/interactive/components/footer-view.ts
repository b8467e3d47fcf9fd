import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import type { SessionStats } from "../../../core/session-stats.js";
import { style } from "../theme.js";

/** Everything the footer shows, gathered by the caller after each run and each setting change. */
export type FooterInfo = {
  cwd: string;
  home: string | undefined;
  sessionName: string | undefined;
  stats: SessionStats;
  contextWindow: number;
  model: string;
  thinkingLevel: string;
};

/** `~/project` for paths under the home folder. */
export function shortenPath(path: string, home: string | undefined): string {
  if (home && (path === home || path.startsWith(`${home}/`))) return `~${path.slice(home.length)}`;
  return path;
}

/** 1234 → "1.2k", 2_500_000 → "2.5M". */
export function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

/** The footer's two lines, unstyled: where and which session, then usage, cost, context and model. */
export function formatFooter(info: FooterInfo): [string, string] {
  const { stats } = info;
  const where = shortenPath(info.cwd, info.home) + (info.sessionName ? ` · ${info.sessionName}` : "");
  const percent = info.contextWindow > 0 ? (stats.contextTokens / info.contextWindow) * 100 : 0;
  const usage = [
    `↑${formatTokens(stats.tokens.input)}`,
    `↓${formatTokens(stats.tokens.output)}`,
    `R${formatTokens(stats.tokens.cacheRead)}`,
    `W${formatTokens(stats.tokens.cacheWrite)}`,
    `$${stats.cost.toFixed(3)}`,
    `${percent.toFixed(1)}%/${formatTokens(info.contextWindow)}`,
  ].join(" ");
  const thinking = info.thinkingLevel === "off" ? "thinking off" : `thinking ${info.thinkingLevel}`;
  return [where, `${usage}  ${info.model} · ${thinking}`];
}

/** The bottom two lines, under the editor. Re-rendered only when `setInfo` changes them. */
export class FooterView implements Component {
  private lines: [string, string] | undefined;
  private cachedWidth = -1;
  private cachedLines: string[] | undefined;

  setInfo(info: FooterInfo): void {
    const lines = formatFooter(info);
    if (this.lines && this.lines[0] === lines[0] && this.lines[1] === lines[1]) return;
    this.lines = lines;
    this.cachedLines = undefined;
  }

  invalidate(): void {
    this.cachedLines = undefined;
  }

  render(width: number): string[] {
    if (!this.lines) return [];
    if (this.cachedLines && this.cachedWidth === width) return this.cachedLines;
    this.cachedLines = this.lines.map((line) => style.gray(truncateToWidth(line, width)));
    this.cachedWidth = width;
    return this.cachedLines;
  }
}

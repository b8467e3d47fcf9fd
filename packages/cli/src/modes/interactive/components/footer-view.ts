import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import type { SessionStats } from "../../../core/session-stats.js";
import { sanitizeText } from "../sanitize-text.js";
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
  /** Whether the model supports thinking; a level set on one that does not is marked. */
  reasoning?: boolean;
  /** The git branch of the cwd, when it is a repository. */
  gitBranch?: string | undefined;
  /** "plan" shows plan mode (Shift+Tab leaves it). */
  permissionMode?: "default" | "plan";
  /** The active sandbox level, e.g. "workspace-write, network off". */
  sandbox?: string | undefined;
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
  const where =
    shortenPath(info.cwd, info.home) +
    (info.gitBranch ? ` (${info.gitBranch})` : "") +
    (info.sessionName ? ` · ${info.sessionName}` : "");
  const safety = [
    info.permissionMode === "plan" ? "⏸ plan mode (shift+tab to leave)" : undefined,
    info.sandbox ? `sandbox ${info.sandbox}` : undefined,
  ].filter((part) => part !== undefined);
  const percent = info.contextWindow > 0 ? (stats.contextTokens / info.contextWindow) * 100 : 0;
  const usage = [
    `↑${formatTokens(stats.tokens.input)}`,
    `↓${formatTokens(stats.tokens.output)}`,
    `R${formatTokens(stats.tokens.cacheRead)}`,
    `W${formatTokens(stats.tokens.cacheWrite)}`,
    `$${stats.cost.toFixed(3)}`,
    `${percent.toFixed(1)}%/${formatTokens(info.contextWindow)}`,
  ].join(" ");
  const thinking =
    info.thinkingLevel === "off"
      ? "thinking off"
      : `thinking ${info.thinkingLevel}${info.reasoning === false ? " (not supported by this model)" : ""}`;
  return [[where, ...safety].join(" · "), `${usage}  ${info.model} · ${thinking}`];
}

/**
 * The bottom lines, under the editor: the two of `setInfo`, then one for extension statuses
 * (`ui.setStatus`) while any is set. Re-rendered only when those change.
 */
export class FooterView implements Component {
  private lines: [string, string] | undefined;
  private readonly statuses = new Map<string, string>();
  private cachedWidth = -1;
  private cachedLines: string[] | undefined;

  setInfo(info: FooterInfo): void {
    const lines = formatFooter(info);
    if (this.lines && this.lines[0] === lines[0] && this.lines[1] === lines[1]) return;
    this.lines = lines;
    this.cachedLines = undefined;
  }

  /** An extension's status under `key`; undefined (or "") removes it. Text is one line, sanitised. */
  setStatus(key: string, text: string | undefined): void {
    const clean =
      text === undefined
        ? ""
        : sanitizeText(text)
            .replace(/\s*\n\s*/g, " ")
            .trim();
    if ((this.statuses.get(key) ?? "") === clean) return;
    if (clean === "") this.statuses.delete(key);
    else this.statuses.set(key, clean);
    this.cachedLines = undefined;
  }

  invalidate(): void {
    this.cachedLines = undefined;
  }

  render(width: number): string[] {
    if (!this.lines) return [];
    if (this.cachedLines && this.cachedWidth === width) return this.cachedLines;
    const lines = this.lines.map((line) => style.gray(truncateToWidth(line, width)));
    if (this.statuses.size > 0) lines.push(style.cyan(truncateToWidth([...this.statuses.values()].join(" · "), width)));
    this.cachedLines = lines;
    this.cachedWidth = width;
    return this.cachedLines;
  }
}

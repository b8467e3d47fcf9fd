import type { AgentToolResult } from "@gyre/agent";
import { type Component, truncateToWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import { countOf } from "../count-of.js";
import { sanitizeText } from "../sanitize-text.js";
import { style } from "../theme.js";

/** Lines of a collapsed result; the rest is one Ctrl+O away. */
export const COLLAPSED_LINES = 10;
/** Lines of the live tail while a command runs. */
const LIVE_TAIL_LINES = 6;

type ToolState = {
  toolCallId: string;
  name: string;
  args: Record<string, unknown>;
  partial?: AgentToolResult;
  result?: AgentToolResult;
  isError: boolean;
  done: boolean;
};

/** The tool-result sentence `@gyre/agent` writes for a call cut short by an abort. */
const abortedCall = /^The call to "[^"]+" was cancelled because the run was aborted/;

/**
 * One tool call: a header with the tool's name and its arguments in brief, then its result —
 * an edit as a coloured diff, bash as a live tail and then its exit code, a read as the line
 * range it returned, errors in red. Long bodies collapse unless `expanded`.
 */
export class ToolCallView implements Component {
  private readonly state: ToolState;
  private cachedWidth = -1;
  private cachedLines: string[] | undefined;

  constructor(
    toolCallId: string,
    name: string,
    args: Record<string, unknown>,
    private expanded = false,
  ) {
    this.state = { toolCallId, name, args, isError: false, done: false };
  }

  get toolCallId(): string {
    return this.state.toolCallId;
  }

  setArgs(args: Record<string, unknown>): void {
    this.state.args = args;
    this.invalidate();
  }

  setPartialResult(partial: AgentToolResult): void {
    this.state.partial = partial;
    this.invalidate();
  }

  setResult(result: AgentToolResult, isError: boolean): void {
    this.state.result = result;
    this.state.isError = isError;
    this.state.done = true;
    this.invalidate();
  }

  setExpanded(expanded: boolean): void {
    if (this.expanded === expanded) return;
    this.expanded = expanded;
    this.invalidate();
  }

  invalidate(): void {
    this.cachedLines = undefined;
  }

  render(width: number): string[] {
    if (this.cachedLines && this.cachedWidth === width) return this.cachedLines;
    const inner = Math.max(1, width - 2);
    const body = this.renderBody().flatMap((line) => (line === "" ? [""] : wrapTextWithAnsi(line, inner)));
    const lines = [truncateToWidth(this.renderHeader(), width), ...body.map((line) => `  ${line}`), ""];
    this.cachedWidth = width;
    this.cachedLines = lines;
    return lines;
  }

  private renderHeader(): string {
    const { name, done, isError } = this.state;
    const bullet = !done ? style.yellow("●") : isError ? style.red("●") : style.green("●");
    return `${bullet} ${style.bold(name)} ${style.gray(sanitizeText(describeArgs(name, this.state.args)).replace(/\n/g, " "))}`;
  }

  private renderBody(): string[] {
    const { name, done, isError, result, partial, args } = this.state;
    if (!done) {
      if (name !== "bash" || !partial) return [];
      return tail(splitLines(resultText(partial)), LIVE_TAIL_LINES).map(style.dim);
    }
    const text = result ? resultText(result) : "";
    // Aborted: the model is told the call was cancelled; the user sees what it printed so far.
    if (isError && abortedCall.test(text)) {
      const printed = partial ? this.collapse(splitLines(resultText(partial)).map(style.dim), "tail") : [];
      return [...printed, style.yellow("⏹ aborted")];
    }
    if (isError) return this.collapse(splitLines(text).map(style.red), name === "bash" ? "tail" : "head");
    const details = (result?.details ?? {}) as Record<string, unknown>;
    switch (name) {
      case "edit":
        return typeof details.diff === "string"
          ? this.collapse(colourDiff(details.diff))
          : this.collapse(splitLines(text));
      case "bash":
        return [...this.collapse(splitLines(text), "tail"), describeExit(details)];
      case "read":
        return this.expanded ? splitLines(text) : [style.gray(describeRead(details))];
      case "write":
        return this.expanded && typeof args.content === "string"
          ? splitLines(args.content)
          : [style.gray(firstLine(text))];
      default:
        return this.collapse(splitLines(text));
    }
  }

  /** All lines when expanded; else the first (or last) few with a note of how many are hidden. */
  private collapse(lines: string[], keep: "head" | "tail" = "head"): string[] {
    if (this.expanded || lines.length <= COLLAPSED_LINES) return lines;
    const hidden = style.gray(`… ${countOf(lines.length - COLLAPSED_LINES, "more line")} (Ctrl+O to expand)`);
    return keep === "head" ? [...lines.slice(0, COLLAPSED_LINES), hidden] : [hidden, ...tail(lines, COLLAPSED_LINES)];
  }
}

/** The text parts of a tool result joined; images become a placeholder. */
export function resultText(result: AgentToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : `[image ${part.mimeType}]`)).join("\n");
}

/** A one-line summary of a tool call's arguments. */
export function describeArgs(name: string, args: Record<string, unknown>): string {
  const path = typeof args.path === "string" ? args.path : undefined;
  if (name === "bash" && typeof args.command === "string") return args.command;
  if (name === "read" && path) {
    const offset = typeof args.offset === "number" ? args.offset : undefined;
    const limit = typeof args.limit === "number" ? args.limit : undefined;
    if (offset === undefined && limit === undefined) return path;
    const start = offset ?? 1;
    return `${path}:${start}${limit !== undefined ? `-${start + limit - 1}` : ""}`;
  }
  if (path) return path;
  const json = JSON.stringify(args);
  return json === "{}" ? "" : json.length > 200 ? `${json.slice(0, 199)}…` : json;
}

function describeRead(details: Record<string, unknown>): string {
  if (details.kind === "image") return `image (${String(details.mimeType ?? "")})`;
  if (details.kind === "binary") return "binary file";
  if (details.kind === "empty") return "empty file";
  const { startLine, endLine, totalLines } = details;
  if (typeof startLine !== "number" || typeof endLine !== "number") return "read";
  return `lines ${startLine}-${endLine}${typeof totalLines === "number" ? ` of ${totalLines}` : ""}${details.truncated ? " (truncated)" : ""}`;
}

function describeExit(details: Record<string, unknown>): string {
  const seconds = typeof details.durationMs === "number" ? ` · ${(details.durationMs / 1000).toFixed(1)}s` : "";
  if (details.timedOut) return style.red(`timed out${seconds}`);
  if (details.aborted) return style.yellow(`aborted${seconds}`);
  const code = details.exitCode;
  if (typeof code !== "number") return style.gray(`done${seconds}`);
  return code === 0 ? style.gray(`exit 0${seconds}`) : style.red(`exit ${code}${seconds}`);
}

/** Colours a unified diff: additions green, removals red, hunk headers cyan. */
export function colourDiff(diff: string): string[] {
  return splitLines(diff).map((line) => {
    if (line.startsWith("+++") || line.startsWith("---")) return style.bold(line);
    if (line.startsWith("+")) return style.green(line);
    if (line.startsWith("-")) return style.red(line);
    if (line.startsWith("@@")) return style.cyan(line);
    return style.gray(line);
  });
}

function splitLines(text: string): string[] {
  const clean = sanitizeText(text).replace(/\n+$/, "");
  return clean === "" ? [] : clean.split("\n");
}

function firstLine(text: string): string {
  return splitLines(text)[0] ?? "";
}

function tail<T>(items: T[], count: number): T[] {
  return items.length <= count ? items : items.slice(items.length - count);
}

import type { AgentToolResult } from "@gyre/agent";
import { type Component, truncateToWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import { countOf } from "../count-of.js";
import { sanitizeText } from "../sanitize-text.js";
import { style } from "../theme.js";
import { describeArgsByDefault, readDetails, rendererFor, splitLines } from "../tool-renderers/index.js";
import { scanStreamingArguments } from "./streaming-arguments.js";

/** Lines of a collapsed result; the rest is one Ctrl+O away. */
export const COLLAPSED_LINES = 10;
/** Lines of the live tail while a command runs. */
const LIVE_TAIL_LINES = 6;

type ToolState = {
  toolCallId: string;
  name: string;
  args: Record<string, unknown>;
  /** The argument text while the call still streams (its `arguments` are `{}` until it ends). */
  rawArguments?: string;
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
  /** Shown in place of the tool's name (`!` for the user's own shell commands). */
  private title: string | undefined;
  private readonly startedAt = Date.now();
  /** The whole seconds shown in the header of a running command, so a tick redraws it. */
  private shownSeconds = -1;

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

  setTitle(title: string): void {
    this.title = title;
    this.invalidate();
  }

  setArgs(args: Record<string, unknown>): void {
    this.state.args = args;
    this.invalidate();
  }

  /** Keeps the streaming argument text; it is scanned for the header only when rendered. */
  setRawArguments(rawArguments: string | undefined): void {
    if (this.state.rawArguments === rawArguments) return;
    if (rawArguments === undefined) delete this.state.rawArguments;
    else this.state.rawArguments = rawArguments;
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

  private headerArgs(): Record<string, unknown> {
    const { args, rawArguments } = this.state;
    return rawArguments !== undefined && Object.keys(args).length === 0 ? scanStreamingArguments(rawArguments) : args;
  }

  invalidate(): void {
    this.cachedLines = undefined;
  }

  render(width: number): string[] {
    const seconds = this.runningSeconds();
    if (this.cachedLines && this.cachedWidth === width && seconds === this.shownSeconds) return this.cachedLines;
    this.shownSeconds = seconds;
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
    const seconds = this.runningSeconds();
    const elapsed = seconds > 0 ? style.yellow(` · ${seconds}s`) : "";
    return `${bullet} ${style.bold(this.title ?? name)} ${style.gray(sanitizeText(describeArgs(name, this.headerArgs())).replace(/\n/g, " "))}${elapsed}`;
  }

  /** Whole seconds a live-output command (bash) has run; -1 once done or for other tools. */
  private runningSeconds(): number {
    if (this.state.done || !rendererFor(this.state.name).showsLiveOutput) return -1;
    return Math.floor((Date.now() - this.startedAt) / 1000);
  }

  private renderBody(): string[] {
    const { name, done, isError, result, partial, args } = this.state;
    const renderer = rendererFor(name);
    if (!done) {
      if (!renderer.showsLiveOutput || !partial) return [];
      return tail(splitLines(resultText(partial)), LIVE_TAIL_LINES).map(style.dim);
    }
    const text = result ? resultText(result) : "";
    // Aborted: the model is told the call was cancelled; the user sees what it printed so far.
    if (isError && abortedCall.test(text)) {
      const printed = partial ? this.collapse(splitLines(resultText(partial)).map(style.dim), "tail") : [];
      return [...printed, style.yellow("⏹ aborted")];
    }
    if (isError) return this.collapse(splitLines(text).map(style.red), renderer.errorKeeps ?? "head");
    return renderer.renderResult({
      args,
      text,
      details: readDetails(result?.details, renderer.detailFields),
      expanded: this.expanded,
      collapse: (lines, keep) => this.collapse(lines, keep),
    });
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

/** A one-line summary of a tool call's arguments: the tool's renderer's, else the default. */
export function describeArgs(name: string, args: Record<string, unknown>): string {
  return rendererFor(name).describeArgs?.(args) ?? describeArgsByDefault(args);
}

function tail<T>(items: T[], count: number): T[] {
  return items.length <= count ? items : items.slice(items.length - count);
}

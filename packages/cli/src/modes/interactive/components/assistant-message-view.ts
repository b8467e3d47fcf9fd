import type { AssistantMessage } from "@gyre/ai";
import { type Component, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import { describeWebSearches } from "../../web-search-lines.js";
import { countOf } from "../count-of.js";
import { sanitizeText } from "../sanitize-text.js";
import { style } from "../theme.js";
import { StreamingMarkdown } from "./streaming-markdown.js";

type Block = { kind: "text"; view: StreamingMarkdown } | { kind: "thinking"; view: StreamingMarkdown; lines: number };

/**
 * An assistant message: its text as Markdown, thinking dimmed (collapsed to one line unless
 * shown), the provider's web searches as short lines (query, result count, cited URLs), and a
 * closing note when the answer was aborted or failed. Tool calls are rendered by
 * their own `ToolCallView`s, which the chat places after this view.
 */
export class AssistantMessageView implements Component {
  private readonly blocks: Block[] = [];
  private message: AssistantMessage | undefined;
  private searchLines: string[] = [];
  private cachedWidth = -1;
  private cachedLines: string[] | undefined;

  constructor(private showThinking: boolean) {}

  /** Updates from a (partial or final) message; unchanged blocks keep their cached layout. */
  setMessage(message: AssistantMessage): void {
    this.message = message;
    let index = 0;
    for (const { kind, text } of joinTextRuns(message)) {
      let block = this.blocks[index];
      if (!block || block.kind !== kind) {
        block =
          kind === "text"
            ? { kind, view: new StreamingMarkdown("", undefined, "  ") }
            : { kind, view: new StreamingMarkdown("", { color: style.gray, italic: true }, "  "), lines: 0 };
        this.blocks[index] = block;
      }
      block.view.setText(text.trimEnd());
      if (block.kind === "thinking") block.lines = text.trim() === "" ? 0 : text.trim().split("\n").length;
      index++;
    }
    this.blocks.length = index;
    this.searchLines = describeWebSearches(message);
    this.cachedLines = undefined;
  }

  setShowThinking(show: boolean): void {
    if (this.showThinking === show) return;
    this.showThinking = show;
    this.cachedLines = undefined;
  }

  invalidate(): void {
    for (const block of this.blocks) block.view.invalidate();
    this.cachedLines = undefined;
  }

  render(width: number): string[] {
    if (this.cachedLines && this.cachedWidth === width) return this.cachedLines;
    const inner = Math.max(1, width - 2);
    const lines: string[] = [];
    for (const block of this.blocks) {
      if (block.kind === "thinking") {
        if (block.lines === 0) continue;
        if (!this.showThinking) {
          lines.push(style.gray(style.italic(`  thinking (${countOf(block.lines, "line")}, Ctrl+T to show)`)));
          continue;
        }
      }
      const rendered = block.view.render(inner);
      if (rendered.length === 0) continue;
      for (const line of rendered) lines.push(line);
      if (block.kind === "thinking") lines.push("");
    }
    for (const line of this.searchLines) {
      for (const wrapped of wrapTextWithAnsi(sanitizeText(line), inner)) lines.push(`  ${style.gray(wrapped)}`);
    }
    lines.push(...this.renderEnding(inner));
    if (lines.length > 0) lines.push("");
    this.cachedWidth = width;
    this.cachedLines = lines;
    return lines;
  }

  private renderEnding(width: number): string[] {
    const message = this.message;
    if (!message) return [];
    if (message.stopReason === "aborted") return [`  ${style.yellow("⏹ aborted")}`];
    if (message.stopReason === "error") {
      const text = `✗ ${sanitizeText(message.errorMessage ?? "the model call failed")}`;
      return wrapTextWithAnsi(text, width).map((line) => `  ${style.red(line)}`);
    }
    if (message.stopReason === "length") return [`  ${style.yellow("… stopped at the output token limit")}`];
    return [];
  }
}

/**
 * The message's text and thinking in order, consecutive text blocks joined: Anthropic splits an
 * answer into a block per cited span, which must read as one paragraph, not one line each.
 */
function joinTextRuns(message: AssistantMessage): { kind: Block["kind"]; text: string }[] {
  const runs: { kind: Block["kind"]; text: string }[] = [];
  for (const part of message.content) {
    if (part.type === "toolCall" || part.type === "serverToolCall" || part.type === "serverToolResult") continue;
    const text = part.type === "text" ? part.text : part.redacted ? "[redacted thinking]" : part.thinking;
    const last = runs.at(-1);
    if (part.type === "text" && last?.kind === "text") last.text += text;
    else runs.push({ kind: part.type, text });
  }
  return runs;
}

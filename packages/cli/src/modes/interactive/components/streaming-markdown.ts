import { type Component, type DefaultTextStyle, Markdown } from "@mariozechner/pi-tui";
import { sanitizeText } from "../sanitize-text.js";
import { markdownTheme } from "../theme.js";

const fencePattern = /^\s{0,3}(```|~~~)/;

/**
 * Markdown that grows while it streams. The text is cut into blocks at blank lines outside code
 * fences; finished blocks are parsed and laid out once and then served from cache, so each frame
 * only re-parses the block still being written. Without this, a 2,000-line answer is re-parsed
 * from the top on every frame (quadratic in the answer's length). Text is sanitised per block.
 */
export class StreamingMarkdown implements Component {
  private raw = "";
  private readonly frozen: Markdown[] = [];
  /** Raw offset where the unfrozen tail starts. */
  private frozenUpTo = 0;
  /** Raw offset of the first line not yet scanned for block ends. */
  private scannedUpTo = 0;
  private inFence = false;
  private tail: Markdown;
  private cachedWidth = -1;
  private cachedLines: string[] | undefined;

  constructor(
    text = "",
    private readonly defaultStyle?: DefaultTextStyle,
  ) {
    this.tail = this.createBlock("");
    this.setText(text);
  }

  /** Replaces the text; appending to the previous text (the streaming case) reuses finished blocks. */
  setText(text: string): void {
    if (text === this.raw) return;
    if (!text.startsWith(this.raw)) this.reset();
    this.raw = text;
    this.scan();
    this.tail.setText(sanitizeText(text.slice(this.frozenUpTo)));
    this.cachedLines = undefined;
  }

  getText(): string {
    return this.raw;
  }

  invalidate(): void {
    for (const block of this.frozen) block.invalidate();
    this.tail.invalidate();
    this.cachedLines = undefined;
  }

  render(width: number): string[] {
    if (this.cachedLines && this.cachedWidth === width) return this.cachedLines;
    const lines: string[] = [];
    for (const block of this.frozen) for (const line of block.render(width)) lines.push(line);
    for (const line of this.tail.render(width)) lines.push(line);
    this.cachedWidth = width;
    this.cachedLines = lines;
    return lines;
  }

  private scan(): void {
    const text = this.raw;
    let lineStart = this.scannedUpTo;
    for (let newline = text.indexOf("\n", lineStart); newline >= 0; newline = text.indexOf("\n", lineStart)) {
      const line = text.slice(lineStart, newline);
      if (fencePattern.test(line)) this.inFence = !this.inFence;
      else if (!this.inFence && line.trim() === "" && text.slice(this.frozenUpTo, lineStart).trim() !== "") {
        // The block keeps its blank line, so it renders the gap to the next block itself.
        this.frozen.push(this.createBlock(sanitizeText(text.slice(this.frozenUpTo, newline + 1))));
        this.frozenUpTo = newline + 1;
      }
      lineStart = newline + 1;
    }
    this.scannedUpTo = lineStart;
  }

  private reset(): void {
    this.raw = "";
    this.frozen.length = 0;
    this.frozenUpTo = 0;
    this.scannedUpTo = 0;
    this.inFence = false;
  }

  private createBlock(text: string): Markdown {
    return new Markdown(text, 0, 0, markdownTheme, this.defaultStyle);
  }
}

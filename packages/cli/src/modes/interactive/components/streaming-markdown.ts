import { type Component, type DefaultTextStyle, Markdown } from "@mariozechner/pi-tui";
import { sanitizeText } from "../sanitize-text.js";
import { markdownTheme } from "../theme.js";
import { isSetextOrTableRule, lineKind } from "./markdown-lines.js";

/**
 * A line without the spaces Markdown pads it to the full width with. The renderer clears each
 * line it writes, so without a background they draw nothing and only cost bytes (a third of a
 * streamed answer's).
 */
function trimPadding(line: string): string {
  return line.endsWith(" ") ? line.replace(/ +$/, "") : line;
}

/**
 * Markdown that grows while it streams. Finished text is cut into blocks that are parsed and laid
 * out once and then served from cache, so each frame only re-parses the block still being written.
 * Without this, a 2,000-line answer is re-parsed from the top on every frame (quadratic in the
 * answer's length). Two kinds of cut:
 * - hard, at a blank line outside code fences: nothing after it changes what came before;
 * - soft, between two plain lines of one top-level paragraph (see `lineKind`), so an answer of
 *   single-spaced lines streams in linear time too. A later setext underline or table rule could
 *   still turn the paragraph into a heading or table, so such a line undoes the soft cuts.
 * Text is sanitised per block.
 */
export class StreamingMarkdown implements Component {
  private raw = "";
  private readonly frozen: Markdown[] = [];
  /** How many `frozen` blocks end in a hard cut (never undone). */
  private hardBlocks = 0;
  /** Raw offset just after the last hard cut. */
  private hardUpTo = 0;
  /** Raw offset where the unfrozen tail starts. */
  private frozenUpTo = 0;
  /** Raw offset of the first line not yet scanned for block ends. */
  private scannedUpTo = 0;
  private inFence = false;
  /** What the last scanned line was, for deciding whether the next one may follow a soft cut. */
  private previous: "boundary" | "plain" | "other" = "boundary";
  /** Whether the current paragraph is top-level and every line so far closes its inline markup. */
  private paragraphSafe = true;
  private tail: Markdown;
  /** Lines of the frozen blocks at `frozenWidth`, appended as blocks freeze. */
  private frozenLines: string[] = [];
  private frozenRendered = 0;
  private frozenWidth = -1;
  private cachedWidth = -1;
  private cachedLines: string[] | undefined;
  private readonly trim: (line: string) => string;

  constructor(
    text = "",
    private readonly defaultStyle?: DefaultTextStyle,
    /** Put before every line; kept in the cache, so the caller need not copy each line per frame. */
    private readonly indent = "",
  ) {
    this.trim = defaultStyle?.bgColor ? (line) => line : trimPadding;
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
    this.forgetFrozenLines();
    this.cachedLines = undefined;
  }

  render(width: number): string[] {
    if (this.cachedLines && this.cachedWidth === width) return this.cachedLines;
    if (this.frozenWidth !== width) this.forgetFrozenLines();
    this.frozenWidth = width;
    for (; this.frozenRendered < this.frozen.length; this.frozenRendered++) {
      const block = this.frozen[this.frozenRendered] as Markdown;
      for (const line of block.render(width)) this.frozenLines.push(this.trim(this.indent + line));
    }
    const tail = this.tail.render(width).map((line) => this.trim(this.indent + line));
    const lines = tail.length === 0 ? this.frozenLines.slice() : this.frozenLines.concat(tail);
    this.cachedWidth = width;
    this.cachedLines = lines;
    return lines;
  }

  private scan(): void {
    const text = this.raw;
    let lineStart = this.scannedUpTo;
    for (let newline = text.indexOf("\n", lineStart); newline >= 0; newline = text.indexOf("\n", lineStart)) {
      this.scanLine(text.slice(lineStart, newline), lineStart, newline + 1);
      lineStart = newline + 1;
    }
    this.scannedUpTo = lineStart;
  }

  /** Looks at one finished line (`start`..`next`) and freezes what it finishes. */
  private scanLine(line: string, start: number, next: number): void {
    const kind = lineKind(line, this.inFence);
    switch (kind) {
      case "fence":
        this.inFence = !this.inFence;
        this.setPrevious("other");
        return;
      case "code":
        this.setPrevious("other");
        return;
      case "blank":
        // The block keeps its blank line, so it renders the gap to the next block itself.
        if (this.raw.slice(this.frozenUpTo, start).trim() !== "") {
          this.freeze(next);
          this.hardBlocks = this.frozen.length;
          this.hardUpTo = next;
        }
        this.setPrevious("boundary");
        return;
      case "heading":
        this.setPrevious("boundary");
        return;
      case "plain":
      case "open":
        if (this.previous === "plain" && this.paragraphSafe) this.freeze(start);
        if (kind === "open") this.paragraphSafe = false;
        this.previous = "plain";
        return;
      case "other":
        if (isSetextOrTableRule(line)) this.undoSoftCuts();
        this.setPrevious("other");
        return;
      default: {
        const never: never = kind;
        throw new Error(`Unknown line kind ${String(never)}`);
      }
    }
  }

  private setPrevious(previous: "boundary" | "other"): void {
    this.previous = previous;
    this.paragraphSafe = previous === "boundary";
  }

  private freeze(upTo: number): void {
    this.frozen.push(this.createBlock(sanitizeText(this.raw.slice(this.frozenUpTo, upTo))));
    this.frozenUpTo = upTo;
  }

  /** Gives the soft-cut blocks back to the tail, which re-parses them with what follows. */
  private undoSoftCuts(): void {
    if (this.frozen.length === this.hardBlocks) return;
    this.frozen.length = this.hardBlocks;
    this.frozenUpTo = this.hardUpTo;
    this.forgetFrozenLines();
  }

  private forgetFrozenLines(): void {
    this.frozenLines = [];
    this.frozenRendered = 0;
  }

  private reset(): void {
    this.raw = "";
    this.frozen.length = 0;
    this.hardBlocks = 0;
    this.hardUpTo = 0;
    this.frozenUpTo = 0;
    this.scannedUpTo = 0;
    this.inFence = false;
    this.previous = "boundary";
    this.paragraphSafe = true;
    this.forgetFrozenLines();
  }

  private createBlock(text: string): Markdown {
    return new Markdown(text, 0, 0, markdownTheme, this.defaultStyle);
  }
}

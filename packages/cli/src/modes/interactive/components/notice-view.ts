import { type Component, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import { sanitizeText } from "../sanitize-text.js";
import { style } from "../theme.js";

/** How a notice looks: info in grey, warnings yellow, errors red. */
export type NoticeLevel = "info" | "warning" | "error";

/** One or more lines of UI text in the conversation (command output, warnings). Static once added. */
export class NoticeView implements Component {
  private cachedWidth = -1;
  private cachedLines: string[] | undefined;

  constructor(
    private readonly text: string,
    private readonly level: NoticeLevel = "info",
    /** Pre-styled text (command output built by us) skips sanitising. */
    private readonly trusted = false,
  ) {}

  invalidate(): void {
    this.cachedLines = undefined;
  }

  render(width: number): string[] {
    if (this.cachedLines && this.cachedWidth === width) return this.cachedLines;
    const colour = this.level === "error" ? style.red : this.level === "warning" ? style.yellow : style.gray;
    const text = this.trusted ? this.text : sanitizeText(this.text);
    const lines = text
      .split("\n")
      .flatMap((line) => wrapTextWithAnsi(line, Math.max(1, width - 2)))
      .map((line) => `  ${this.trusted ? line : colour(line)}`);
    lines.push("");
    this.cachedWidth = width;
    this.cachedLines = lines;
    return lines;
  }
}

import { type Component, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import { collapseAttachments } from "../attachments.js";
import { sanitizeText } from "../sanitize-text.js";
import { style } from "../theme.js";

/** A message the user sent: a `›` marker and the text as typed, wrapped, never parsed as Markdown. */
export class UserMessageView implements Component {
  private cachedWidth = -1;
  private cachedLines: string[] | undefined;
  private readonly text: string;

  constructor(text: string) {
    // An attached file's content is for the model; the conversation shows which file it was.
    this.text = sanitizeText(collapseAttachments(text)).trimEnd();
  }

  invalidate(): void {
    this.cachedLines = undefined;
  }

  render(width: number): string[] {
    if (this.cachedLines && this.cachedWidth === width) return this.cachedLines;
    const wrapped = this.text.split("\n").flatMap((line) => wrapTextWithAnsi(line, Math.max(1, width - 2)));
    const lines = wrapped.map((line, index) =>
      index === 0 ? `${style.cyan("›")} ${style.bold(line)}` : `  ${style.bold(line)}`,
    );
    lines.push("");
    this.cachedWidth = width;
    this.cachedLines = lines;
    return lines;
  }
}

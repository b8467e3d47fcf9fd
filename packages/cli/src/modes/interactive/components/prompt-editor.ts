import { Editor } from "@mariozechner/pi-tui";
import { style } from "../theme.js";

/** The border cell and a pattern for runs of it, in the current theme's gray (themes switch live). */
let border = { cell: "", run: /$^/g };
function borderPattern(): { cell: string; run: RegExp } {
  const cell = style.gray("─");
  if (cell !== border.cell) border = { cell, run: new RegExp(`(?:${cell.replace(/\[/g, "\\[")}){2,}`, "g") };
  return border;
}

/**
 * pi-tui's editor with its border lines written compactly. pi-tui colours the border one cell at
 * a time (`borderColor("─").repeat(width)`), 11 bytes per cell; the border moves down with every
 * streamed line, so that is most of each frame's bytes and of the renderer's width measuring.
 * One colour run per border looks the same.
 */
export class PromptEditor extends Editor {
  constructor(...args: ConstructorParameters<typeof Editor>) {
    super(...args);
    // pi-tui counts the empty piece after a paste's final newline as a line ("+31 lines" for
    // 30); a paste's last newline is dropped so the marker counts what was pasted.
    const editor = this as unknown as { handlePaste(text: string): void };
    const handlePaste = editor.handlePaste.bind(this);
    editor.handlePaste = (text) => handlePaste(text.replace(/(?:\r\n|\r|\n)$/, ""));
  }

  override render(width: number): string[] {
    const lines = super.render(width);
    const { cell: borderCell, run: borderRun } = borderPattern();
    for (let index = 0; index < lines.length; index++) {
      const line = lines[index] as string;
      if (line.startsWith(borderCell))
        lines[index] = line.replace(borderRun, (run) => style.gray("─".repeat(run.length / borderCell.length)));
    }
    return lines;
  }
}

import { Editor, getKeybindings } from "@mariozechner/pi-tui";
import { AttachmentChips } from "../attachment-chips.js";
import { style } from "../theme.js";

type EditorState = { lines: string[]; cursorLine: number; cursorCol: number };
type EditorInternals = {
  handlePaste(text: string): void;
  pushUndoSnapshot(): void;
  state: EditorState;
  onChange?: (text: string) => void;
};

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
 * One colour run per border looks the same. Text lines lose the spaces that pad them to the
 * full width: the renderer clears each line it writes, so they would draw nothing.
 * Files pasted or dragged in become chips at once (see `AttachmentChips`) once `attachFrom`
 * gives the folder relative paths start from.
 */
export class PromptEditor extends Editor {
  readonly chips = new AttachmentChips();
  /** The folder pasted relative paths resolve against; without it pastes stay text. */
  attachFrom: string | undefined;

  constructor(...args: ConstructorParameters<typeof Editor>) {
    super(...args);
    const editor = this as unknown as EditorInternals;
    const handlePaste = editor.handlePaste.bind(this);
    editor.handlePaste = (pasted) => {
      // pi-tui counts the empty piece after a paste's final newline as a line ("+31 lines" for
      // 30); a paste's last newline is dropped so the marker counts what was pasted.
      const text = pasted.replace(/(?:\r\n|\r|\n)$/, "");
      const chipped = this.attachFrom ? this.chips.fromPaste(text, this.attachFrom) : text;
      const { lines, cursorLine, cursorCol } = editor.state;
      const before = (lines[cursorLine] ?? "").slice(0, cursorCol);
      // A chip right after a word would read as part of it.
      handlePaste(chipped !== text && chipped.startsWith("[") && /\S$/.test(before) ? ` ${chipped}` : chipped);
    };
  }

  override handleInput(data: string): void {
    if (getKeybindings().matches(data, "tui.editor.deleteCharBackward") && this.deleteChipBeforeCursor()) return;
    super.handleInput(data);
  }

  /** Backspace right after a chip takes the whole chip: half a chip would be a broken path. */
  private deleteChipBeforeCursor(): boolean {
    const editor = this as unknown as EditorInternals;
    const { lines, cursorLine, cursorCol } = editor.state;
    const line = lines[cursorLine] ?? "";
    const chip = this.chips.chipAtEnd(line.slice(0, cursorCol));
    if (!chip) return false;
    editor.pushUndoSnapshot();
    lines[cursorLine] = line.slice(0, cursorCol - chip.length) + line.slice(cursorCol);
    editor.state.cursorCol = cursorCol - chip.length;
    editor.onChange?.(this.getText());
    return true;
  }

  override render(width: number): string[] {
    const lines = super.render(width);
    const { cell: borderCell, run: borderRun } = borderPattern();
    for (let index = 0; index < lines.length; index++) {
      const line = lines[index] as string;
      if (line.startsWith(borderCell))
        lines[index] = line.replace(borderRun, (run) => style.gray("─".repeat(run.length / borderCell.length)));
      else {
        let shown = line.endsWith(" ") ? line.replace(/ +$/, "") : line;
        for (const chip of this.chips.chipsIn(shown)) shown = shown.split(chip).join(style.cyan(chip));
        lines[index] = shown;
      }
    }
    return lines;
  }
}

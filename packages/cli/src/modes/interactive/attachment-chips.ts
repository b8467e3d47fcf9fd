import { statSync } from "node:fs";
import { basename } from "node:path";
import { matchPastedPaths, toAbsolute } from "./attachments.js";

const IMAGE_EXTENSION = /\.(?:png|jpe?g|gif|webp)$/i;

/** Quoted the way a terminal drags a file in, so `attachFiles` finds it and the model reads the plain path. */
function quotePath(path: string): string {
  return path.includes("'") ? path.replace(/([\\\s])/g, "\\$1") : `'${path}'`;
}

/**
 * Files pasted or dragged into the editor, shown there as chips (`[image #1 shot.png]`,
 * `[file #2 notes.md]`) from the moment of the paste instead of as a long quoted path. A chip
 * stands for its absolute path: `expand` puts the paths back before the prompt is sent, where
 * `attachFiles` reads them as before. A chip the user edits is no longer a chip, just text.
 */
export class AttachmentChips {
  private readonly paths = new Map<string, string>();
  private count = 0;

  /**
   * `pasted` with each path to an existing file replaced by a new chip. Only one-line pastes:
   * a longer paste is text (code, a log), not something dragged in.
   */
  fromPaste(pasted: string, cwd: string): string {
    if (pasted.includes("\n") || pasted.length > 4096) return pasted;
    let text = pasted;
    for (const { whole, path: raw } of matchPastedPaths(pasted)) {
      const path = toAbsolute(raw, cwd);
      if (statSync(path, { throwIfNoEntry: false })?.isFile() !== true) continue;
      const chip = `[${IMAGE_EXTENSION.test(path) ? "image" : "file"} #${++this.count} ${basename(path)}]`;
      this.paths.set(chip, path);
      text = text.replace(whole, chip);
    }
    return text;
  }

  /** `text` with every chip back as its (quoted) path. */
  expand(text: string): string {
    let expanded = text;
    for (const [chip, path] of this.paths) expanded = expanded.split(chip).join(quotePath(path));
    return expanded;
  }

  /** The chip `text` ends with, if any (Backspace deletes a chip as a whole). */
  chipAtEnd(text: string): string | undefined {
    for (const chip of this.paths.keys()) if (text.endsWith(chip)) return chip;
    return undefined;
  }

  /** The chips in `text`, for drawing them apart from typed text. */
  chipsIn(text: string): string[] {
    return [...this.paths.keys()].filter((chip) => text.includes(chip));
  }
}

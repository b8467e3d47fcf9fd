import type { EditToolDetails } from "../../../core/tools/edit-tool.js";
import { style } from "../theme.js";
import { splitLines, type ToolRenderer } from "./tool-renderer.js";

/** An edit as its coloured diff (the result text when the details carry none). */
export const editRenderer: ToolRenderer<EditToolDetails> = {
  detailFields: { path: "string", diff: "string", editCount: "number" },
  renderResult: ({ details, text, collapse }) =>
    collapse(details.diff !== undefined ? colourDiff(details.diff) : splitLines(text)),
};

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

import type { WriteToolDetails } from "../../../core/tools/write-tool.js";
import { style } from "../theme.js";
import { splitLines, type ToolRenderer } from "./tool-renderer.js";

/** A write as its one-line result; the content written when expanded. */
export const writeRenderer: ToolRenderer<WriteToolDetails> = {
  detailFields: {},
  renderResult: ({ args, text, expanded }) =>
    expanded && typeof args.content === "string" ? splitLines(args.content) : [style.gray(splitLines(text)[0] ?? "")],
};

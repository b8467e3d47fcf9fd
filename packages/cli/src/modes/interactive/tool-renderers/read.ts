import type { ReadToolDetails } from "../../../core/tools/read-tool.js";
import { style } from "../theme.js";
import { splitLines, type ToolRenderer } from "./tool-renderer.js";

/** A read as the range it returned (`path:start-end` in the header); the text when expanded. */
export const readRenderer: ToolRenderer<ReadToolDetails> = {
  detailFields: {
    kind: "string",
    mimeType: "string",
    startLine: "number",
    endLine: "number",
    totalLines: "number",
    truncated: "boolean",
  },
  describeArgs: (args) => {
    if (typeof args.path !== "string") return undefined;
    const offset = typeof args.offset === "number" ? args.offset : undefined;
    const limit = typeof args.limit === "number" ? args.limit : undefined;
    if (offset === undefined && limit === undefined) return args.path;
    const start = offset ?? 1;
    return `${args.path}:${start}${limit !== undefined ? `-${start + limit - 1}` : ""}`;
  },
  renderResult: ({ details, text, expanded }) => (expanded ? splitLines(text) : [style.gray(describeRead(details))]),
};

function describeRead(details: Partial<ReadToolDetails>): string {
  if (details.kind === "image") return `image (${details.mimeType ?? ""})`;
  if (details.kind === "binary") return "binary file";
  if (details.kind === "empty") return "empty file";
  const { startLine, endLine, totalLines } = details;
  if (startLine === undefined || endLine === undefined) return "read";
  return `lines ${startLine}-${endLine}${totalLines !== undefined ? ` of ${totalLines}` : ""}${details.truncated ? " (truncated)" : ""}`;
}

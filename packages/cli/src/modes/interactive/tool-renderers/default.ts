import { splitLines, type ToolRenderer } from "./tool-renderer.js";

/** Any other tool (grep, find, ls, extension tools): its result text, collapsed. */
export const defaultRenderer: ToolRenderer = {
  detailFields: {},
  renderResult: ({ text, collapse }) => collapse(splitLines(text)),
};

/** The header summary when a renderer has none: the path, else the arguments as short JSON. */
export function describeArgsByDefault(args: Record<string, unknown>): string {
  if (typeof args.path === "string") return args.path;
  const json = JSON.stringify(args);
  return json === "{}" ? "" : json.length > 200 ? `${json.slice(0, 199)}…` : json;
}

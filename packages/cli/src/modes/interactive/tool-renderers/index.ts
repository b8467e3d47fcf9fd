/**
 * The chat's tool renderers by tool name. A tool without one (grep, find, ls, extension tools)
 * gets the default: its text, collapsed. A new built-in tool's view is one file and one row here.
 */
import { bashRenderer } from "./bash.js";
import { defaultRenderer } from "./default.js";
import { editRenderer } from "./edit.js";
import { readRenderer } from "./read.js";
import { type AnyToolRenderer, anyRenderer } from "./tool-renderer.js";
import { writeRenderer } from "./write.js";

export { describeArgsByDefault } from "./default.js";
export { colourDiff } from "./edit.js";
export { readDetails, splitLines, type ToolRenderer, type ToolResultView } from "./tool-renderer.js";

const renderers: ReadonlyMap<string, AnyToolRenderer> = new Map([
  ["edit", anyRenderer(editRenderer)],
  ["bash", anyRenderer(bashRenderer)],
  ["read", anyRenderer(readRenderer)],
  ["write", anyRenderer(writeRenderer)],
]);

/** The renderer for tool `name`: its own, else the default. */
export function rendererFor(name: string): AnyToolRenderer {
  return renderers.get(name) ?? anyRenderer(defaultRenderer);
}

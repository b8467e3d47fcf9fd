/**
 * The harness-level cap on what a tool returns to the model: extension (and later MCP) tools get
 * the same limits the built-in tools apply to themselves, so one tool cannot send a megabyte.
 */
import type { AgentToolResult, AnyAgentTool } from "@gyre/agent";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHead } from "./truncate.js";

/** Cuts each text block of `result` to the built-in tools' limits, with a notice where it cut. */
export function capToolResult<T extends AgentToolResult>(result: T, toolName: string): T {
  let changed = false;
  const content = result.content.map((block) => {
    if (block.type !== "text") return block;
    const cut = truncateHead(block.text, { maxLines: DEFAULT_MAX_LINES, maxBytes: DEFAULT_MAX_BYTES });
    if (!cut.truncated) return block;
    changed = true;
    const size = formatSize(Buffer.byteLength(block.text));
    const notice = `[the ${toolName} tool returned ${size} (${cut.totalLines} lines); only the first ${cut.keptLines} lines are shown. Ask the tool for less, or for a part at a time.]`;
    return { ...block, text: `${cut.text}\n\n${notice}` };
  });
  return changed ? { ...result, content } : result;
}

/** `tool` with every result it returns (and every partial update) capped by `capToolResult`. */
export function withCappedResults(tool: AnyAgentTool): AnyAgentTool {
  return {
    ...tool,
    execute: async (args, context) => {
      const onUpdate = context.onUpdate;
      const capped = onUpdate
        ? { ...context, onUpdate: (partial: AgentToolResult) => onUpdate(capToolResult(partial, tool.name)) }
        : context;
      return capToolResult(await tool.execute(args, capped), tool.name);
    },
  };
}

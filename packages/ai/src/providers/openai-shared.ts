import type { TextContent, Tool, ToolCall, ToolResultMessage } from "../types.js";
import { removeNullOptionals } from "./strict-schema.js";

/**
 * What the Chat Completions and Responses providers share: which tools went out in strict mode,
 * undoing the `null`s strict mode forces on optional arguments, and the text of a tool result.
 */

/**
 * The original schemas of the tools a request sends with `strict: true`, by name. `sentTools`
 * are the request's function definitions; `tools` are the context's gyre tools they came from.
 */
export function collectStrictSchemas(
  sentTools: readonly { name: string; strict?: boolean }[],
  tools: readonly Tool[] | undefined,
): Map<string, Record<string, unknown>> {
  const strictSchemas = new Map<string, Record<string, unknown>>();
  for (const tool of sentTools) {
    const original = tools?.find((candidate) => candidate.name === tool.name);
    if (tool.strict && original) strictSchemas.set(original.name, original.parameters);
  }
  return strictSchemas;
}

/**
 * A `MessageBuilder.finalizeToolCall` that removes the `null`s strict mode put in the arguments of
 * calls to the tools in `strictSchemas` (optional properties are sent as null there). Undefined
 * when no tool went out strict.
 */
export function createStrictNullRemover(
  strictSchemas: Map<string, Record<string, unknown>>,
): ((toolCall: ToolCall) => ToolCall) | undefined {
  if (strictSchemas.size === 0) return undefined;
  return (toolCall) => {
    const schema = strictSchemas.get(toolCall.name);
    if (!schema) return toolCall;
    return { ...toolCall, arguments: removeNullOptionals(toolCall.arguments, schema) as Record<string, unknown> };
  };
}

/**
 * The text blocks of a tool result joined by newlines; never empty (a placeholder pointing at the
 * attached image, or saying there was no output), since both APIs take tool output as one string.
 */
export function convertToolResultText(message: ToolResultMessage): string {
  const text = message.content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("\n");
  if (text) return text;
  return message.content.some((block) => block.type === "image") ? "(see the attached image)" : "(no output)";
}

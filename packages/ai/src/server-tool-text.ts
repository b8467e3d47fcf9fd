import type { ServerToolCall, ServerToolResult } from "./types.js";

/** What a server-side search asked for: its `query`, or its `queries` joined; "" when it names none. */
export function describeServerToolQuery(call: ServerToolCall): string {
  const { query, queries } = call.input;
  if (typeof query === "string") return query;
  if (Array.isArray(queries)) return queries.filter((item) => typeof item === "string").join("; ");
  return "";
}

/**
 * A server tool block as plain text, for a model of another API (which cannot take the
 * provider's own blocks back) so that what was searched and found stays in the conversation.
 */
export function convertServerToolBlockToText(block: ServerToolCall | ServerToolResult): string {
  if (block.type === "serverToolCall") {
    const query = describeServerToolQuery(block);
    return query ? `(${block.name}: "${query}")` : `(${block.name})`;
  }
  if (block.errorMessage) return `(${block.name} failed: ${block.errorMessage})`;
  if (block.results.length === 0) return `(${block.name} returned no results)`;
  const lines = block.results.map(
    (result, index) => `${index + 1}. ${result.title ? `${result.title} — ` : ""}${result.url}`,
  );
  return `(${block.name} results:\n${lines.join("\n")})`;
}

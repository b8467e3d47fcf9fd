import { type AssistantMessage, describeServerToolQuery } from "@gyre/ai";

/**
 * What the provider's own web search did in `message`, for people: one line per search
 * (`searched: <query> — N results`, or why it failed), then the URLs the text cites, each once.
 * Empty when the message has no server-side search.
 */
export function describeWebSearches(message: AssistantMessage): string[] {
  const lines: string[] = [];
  const results = new Map<string, { count: number; errorMessage?: string }>();
  for (const block of message.content) {
    if (block.type !== "serverToolResult") continue;
    results.set(block.toolCallId, {
      count: block.results.length,
      ...(block.errorMessage ? { errorMessage: block.errorMessage } : {}),
    });
  }
  for (const block of message.content) {
    if (block.type !== "serverToolCall") continue;
    const query = describeServerToolQuery(block);
    const verb = block.name === "web_search" ? "searched" : block.name;
    const result = results.get(block.id);
    const outcome = !result
      ? "no result yet"
      : result.errorMessage
        ? `failed (${result.errorMessage})`
        : `${result.count} result${result.count === 1 ? "" : "s"}`;
    lines.push(`${verb}: ${query || "(no query)"} — ${outcome}`);
  }
  const cited = new Map<string, string | undefined>();
  for (const block of message.content) {
    if (block.type !== "text") continue;
    for (const citation of block.citations ?? []) if (!cited.has(citation.url)) cited.set(citation.url, citation.title);
  }
  for (const [url, title] of cited) lines.push(`  cited: ${title ? `${title} ` : ""}<${url}>`);
  return lines;
}

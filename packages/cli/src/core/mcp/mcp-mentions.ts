/**
 * `@server:uri` mentions in the user's prompt: each mention of a configured MCP server's
 * resource is read and its content attached below the prompt (text, capped like tool output;
 * binary data and images are described). A mention whose server is not configured is ordinary
 * text (an e-mail address or `@scope:thing` stays as written).
 */
import { convertToolResult } from "./convert-result.js";
import type { McpManager } from "./mcp-manager.js";

/** `@name:scheme…` at the start or after whitespace; trailing sentence punctuation is not part of the URI. */
const mentionPattern = /(^|\s)@([A-Za-z0-9_.-]+):(\S+)/g;

/** The mentions in `text` whose server is one of `servers`, in order, each once. */
export function findMcpMentions(text: string, servers: readonly string[]): { server: string; uri: string }[] {
  const found: { server: string; uri: string }[] = [];
  for (const match of text.matchAll(mentionPattern)) {
    const server = match[2] ?? "";
    const uri = (match[3] ?? "").replace(/[.,;:!?)\]}'"]+$/, "");
    if (!servers.includes(server) || !uri) continue;
    if (!found.some((mention) => mention.server === server && mention.uri === uri)) found.push({ server, uri });
  }
  return found;
}

/**
 * `text` with every mentioned resource attached after it, or `text` itself when it mentions
 * none. Waits (bounded by the server's connect timeout) for a server still connecting. Throws an
 * Error naming the mention when its server is unavailable or cannot read the URI.
 */
export async function expandMcpMentions(manager: McpManager, text: string, signal?: AbortSignal): Promise<string> {
  const mentions = findMcpMentions(
    text,
    manager.statuses().map((status) => status.name),
  );
  if (mentions.length === 0) return text;
  const attached: string[] = [];
  for (const { server, uri } of mentions) {
    const connection = manager.connection(server);
    await connection?.ready;
    const client = connection?.client();
    if (!client) {
      throw new Error(
        `Cannot read @${server}:${uri}: MCP server "${server}" is not connected (${connection?.status().error ?? "see gyre mcp list --verbose"}).`,
      );
    }
    const result = await client.readResource({ uri }, signal ? { signal } : {}).catch((error: Error) => {
      throw new Error(`Cannot read @${server}:${uri}: ${error.message}`);
    });
    const converted = convertToolResult(
      { content: result.contents.map((resource) => ({ type: "resource" as const, resource })) },
      { server, tool: "resources/read" },
    );
    const body = converted.content
      .map((block) =>
        block.type === "text" ? block.text : `[image ${block.mimeType}; read it with mcp_read_resource]`,
      )
      .join("\n");
    attached.push(`<mcp-resource server="${server}" uri="${uri}">\n${body}\n</mcp-resource>`);
  }
  return `${text}\n\n${attached.join("\n\n")}`;
}

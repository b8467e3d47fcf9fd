/**
 * The editor's MCP servers (ACP `McpServer`: stdio, http, sse) in the format gyre's MCP config
 * reads (Claude Code's `.mcp.json`), so they start, are gated and are named like the user's own.
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import type { McpServerConfigJson } from "./acp-types.js";

export function toGyreMcpServers(servers: readonly McpServer[]): Record<string, McpServerConfigJson> {
  const out: Record<string, McpServerConfigJson> = {};
  for (const server of servers) {
    if ("type" in server && (server.type === "http" || server.type === "sse")) {
      const headers = Object.fromEntries(server.headers.map((header) => [header.name, header.value]));
      out[server.name] = { type: server.type, url: server.url, ...(server.headers.length > 0 ? { headers } : {}) };
      continue;
    }
    const stdio = server as Extract<McpServer, { command: string }>;
    const env = Object.fromEntries(stdio.env.map((variable) => [variable.name, variable.value]));
    out[stdio.name] = { command: stdio.command, args: stdio.args, ...(stdio.env.length > 0 ? { env } : {}) };
  }
  return out;
}

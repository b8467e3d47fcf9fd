/**
 * MCP resources for the model: `mcp_list_resources` (what the servers offer, with templates) and
 * `mcp_read_resource` (one resource's contents, converted and capped like tool output). Offered
 * only while a connected server has resources.
 */
import type { AnyAgentTool } from "@gyre/agent";
import { convertToolResult, stripToOneLine } from "./convert-result.js";
import type { McpConnection } from "./mcp-connection.js";

const serverProperty = { type: "string", description: "The MCP server's name (as in mcp__<server>__…)." };

/** The two resource tools over `connections` (looked up at each call, so restarts are followed). */
export function createMcpResourceTools(connections: () => McpConnection[]): AnyAgentTool[] {
  const find = (server: string) => {
    const connection = connections().find((candidate) => candidate.name === server);
    const client = connection?.client();
    if (!connection || !client) {
      const names = connections().map((candidate) => candidate.name);
      throw new Error(
        `No connected MCP server "${server}" with resources; choose from ${names.join(", ") || "(none)"}.`,
      );
    }
    return { connection, client };
  };
  const list: AnyAgentTool = {
    name: "mcp_list_resources",
    readOnly: true,
    label: "MCP resources",
    description: "List the resources (and resource templates) MCP servers offer. Read one with mcp_read_resource.",
    parameters: {
      type: "object",
      properties: { server: { ...serverProperty, description: "Only this server (default: all)." } },
    } as AnyAgentTool["parameters"],
    async execute(args: { server?: string }, context) {
      const lines: string[] = [];
      const chosen = args.server ? [find(args.server).connection] : connections();
      for (const connection of chosen) {
        const client = connection.client();
        if (!client) continue;
        const { resources } = await client.listResources({}, { signal: context.signal });
        const templates = await client
          .listResourceTemplates({}, { signal: context.signal })
          .catch(() => ({ resourceTemplates: [] }));
        lines.push(`${connection.name}:`);
        for (const resource of resources) {
          const type = resource.mimeType ? ` (${stripToOneLine(resource.mimeType)})` : "";
          const about = resource.description ? ` — ${stripToOneLine(resource.description)}` : "";
          lines.push(`  ${stripToOneLine(resource.uri)}  ${stripToOneLine(resource.name)}${type}${about}`);
        }
        for (const template of templates.resourceTemplates) {
          const about = template.description ? ` — ${stripToOneLine(template.description)}` : "";
          lines.push(`  template ${stripToOneLine(template.uriTemplate)}  ${stripToOneLine(template.name)}${about}`);
        }
      }
      const converted = convertToolResult(
        { content: [{ type: "text", text: lines.join("\n") || "No resources." }] },
        { server: args.server ?? "*", tool: "resources/list" },
      );
      return { content: converted.content, details: converted.details };
    },
  };
  const read: AnyAgentTool = {
    name: "mcp_read_resource",
    readOnly: true,
    label: "MCP resource",
    description:
      "Read a resource from an MCP server by its URI (see mcp_list_resources, or a resource link a tool returned).",
    parameters: {
      type: "object",
      properties: { server: serverProperty, uri: { type: "string", description: "The resource URI." } },
      required: ["server", "uri"],
    } as AnyAgentTool["parameters"],
    async execute(args: { server: string; uri: string }, context) {
      const { client } = find(args.server);
      const result = await client.readResource({ uri: args.uri }, { signal: context.signal });
      const converted = convertToolResult(
        { content: result.contents.map((resource) => ({ type: "resource" as const, resource })) },
        { server: args.server, tool: "resources/read" },
      );
      return { content: converted.content, details: converted.details };
    },
  };
  return [list, read];
}

/**
 * An MCP server's tool as a gyre AgentTool named `mcp__<server>__<tool>` (the name permission
 * rules use, docs/design/safety.md, docs/design/mcp.md). The server's JSON Schema is passed through, normalised only where
 * providers or the validator need it; the result is converted and capped; a server's `isError`,
 * a JSON-RPC error or a timeout becomes an error result the model can act on.
 */
import type { AnyAgentTool } from "@gyre/agent";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { convertToolResult, type McpToolDetails, stripControlCharacters } from "./convert-result.js";
import type { McpConnection } from "./mcp-connection.js";

/** Provider tool names allow letters, digits, `_` and `-`, at most 64 characters. */
const maxToolNameLength = 64;
/** A server's description of one tool is cut here (it is sent with every request). */
export const MAX_TOOL_DESCRIPTION_CHARS = 2048;

/** Server-supplied text for the model and the UI: no control characters, at most `max` characters. */
function serverText(text: string, max: number): string {
  const clean = stripControlCharacters(text).trim();
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}

/** The part of a model-facing name a server or tool name becomes (other characters → `_`). */
export function sanitizeNamePart(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

/**
 * `mcp__<server>__<tool>`, cut to 64 characters with a short hash of the full name when longer
 * (two long names stay distinct).
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `mcp__${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
  if (full.length <= maxToolNameLength) return full;
  let hash = 0;
  for (const char of `${server}\u0000${tool}`) hash = (Math.imul(hash, 31) + (char.codePointAt(0) ?? 0)) >>> 0;
  const suffix = `_${hash.toString(36)}`;
  return full.slice(0, maxToolNameLength - suffix.length) + suffix;
}

/**
 * The schema as the model and the validator get it: `$schema` dropped (the validator does not
 * know every draft's meta-schema, and no provider needs it) and an object type with `properties`
 * guaranteed (Anthropic and OpenAI require a top-level object). Everything else passes through.
 */
export function normalizeInputSchema(schema: Tool["inputSchema"] | undefined): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = (schema ?? {}) as Record<string, unknown>;
  return { ...rest, type: "object", properties: rest.properties ?? {} };
}

/** The wrapped tools whose server marks them read-only (`readOnlyHint`); plan mode keeps only these. */
const readOnlyTools = new WeakSet<AnyAgentTool>();

/** Whether `tool` is an MCP tool its server declared read-only. */
export function isReadOnlyMcpTool(tool: AnyAgentTool): boolean {
  return readOnlyTools.has(tool);
}

/** Wraps one tool of `connection`. `timeoutMs` overrides the server's per-call timeout. */
export function createMcpAgentTool(
  connection: McpConnection,
  tool: Tool,
  options: { timeoutMs?: number } = {},
): AnyAgentTool {
  const name = mcpToolName(connection.name, tool.name);
  const title = tool.title ?? tool.annotations?.title;
  const wrapped: AnyAgentTool = {
    name,
    label: serverText(`${connection.name}: ${title ?? tool.name}`, 200),
    description:
      serverText(tool.description ?? "", MAX_TOOL_DESCRIPTION_CHARS) ||
      `The ${serverText(tool.name, 200)} tool of the MCP server ${serverText(connection.name, 100)}.`,
    parameters: normalizeInputSchema(tool.inputSchema) as AnyAgentTool["parameters"],
    // The server's own word (MCP annotation readOnlyHint); without it the tool may change anything.
    ...(tool.annotations?.readOnlyHint === true ? { readOnly: true } : {}),
    async execute(args: Record<string, unknown>, context) {
      let result: Awaited<ReturnType<McpConnection["callTool"]>>;
      try {
        result = await connection.callTool(tool.name, args, {
          signal: context.signal,
          ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
          onProgress: (progress) => {
            const of = progress.total !== undefined ? `/${progress.total}` : "";
            const text = `progress ${progress.progress}${of}${progress.message ? `: ${progress.message}` : ""}`;
            context.onUpdate?.({
              content: [{ type: "text", text }],
              details: { server: connection.name, tool: tool.name, progress },
            });
          },
        });
      } catch (error) {
        throw new Error(stripControlCharacters(describeCallError(connection, tool.name, error, context.signal)));
      }
      const converted = convertToolResult(result, { server: connection.name, tool: tool.name });
      if (converted.isError) {
        const text = converted.content
          .map((block) => (block.type === "text" ? block.text : `[${block.mimeType} image]`))
          .join("\n");
        throw new Error(`The MCP tool ${tool.name} (server ${connection.name}) reported an error:\n${text}`);
      }
      return { content: converted.content, details: converted.details satisfies McpToolDetails };
    },
  };
  if (tool.annotations?.readOnlyHint === true) readOnlyTools.add(wrapped);
  return wrapped;
}

/** One sentence for the model: what failed and what it can do next. */
function describeCallError(connection: McpConnection, tool: string, error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return `The call to ${tool} was cancelled (the server was told to stop).`;
  const { code, message } = error as { code?: unknown; message?: string };
  const where = `MCP server "${connection.name}"`;
  switch (code) {
    case -32001:
      return `${where} did not answer ${tool} in time (${message ?? "timeout"}); the call was cancelled. Try a smaller request, or another way.`;
    case -32000:
      return `${where} closed the connection during ${tool} (it may have crashed; gyre restarts it). Retry the call once it is back, or do without it.`;
    case -32602:
      return `${where} rejected the arguments of ${tool}: ${message ?? "invalid params"}. Fix them to match the tool's schema.`;
    case -32601:
      return `${where} does not know the tool ${tool} any more (${message ?? "method not found"}); its tool list may have changed.`;
    default:
      return typeof code === "number"
        ? `${where} answered ${tool} with error ${code}: ${message ?? "no message"}`
        : `${where}: ${message ?? String(error)}`;
  }
}

/**
 * When MCP servers bring more tool schemas than fit comfortably in every request, the model gets
 * `tool_search` instead: it finds tools by words and loads their definitions, which the next turn
 * then offers. Small tool sets are sent whole, as before.
 */
import type { AnyAgentTool } from "@gyre/agent";

/** Above this many estimated tokens of tool definitions, tools load on demand (Claude Code uses ~10% of context). */
export const DEFAULT_TOOL_SEARCH_THRESHOLD_TOKENS = 10_000;

/** The tokens a set of tool definitions costs per request, estimated at 4 characters a token. */
export function estimateToolTokens(tools: readonly AnyAgentTool[]): number {
  const text = JSON.stringify(tools.map(({ name, description, parameters }) => ({ name, description, parameters })));
  return Math.ceil(text.length / 4);
}

export type ToolSearch = {
  /** The tools to offer now: all of them under the threshold, else `tool_search` and what it loaded. */
  select(tools: readonly AnyAgentTool[]): AnyAgentTool[];
};

/** `onLoad` runs after a search loaded tools, so the caller can hand the new list to the session. */
export function createToolSearch(options: { thresholdTokens?: number; onLoad: () => void }): ToolSearch {
  const threshold = options.thresholdTokens ?? DEFAULT_TOOL_SEARCH_THRESHOLD_TOKENS;
  const loaded = new Set<string>();
  let all: readonly AnyAgentTool[] = [];
  const searchTool: AnyAgentTool = {
    name: "tool_search",
    readOnly: true,
    label: "Tool search",
    description:
      "Find tools of the connected MCP servers by what they do, and load them: the tools found can be called from your next step. Use it before concluding that no tool can help.",
    parameters: {
      type: "object",
      properties: {
        query: { type: "string", description: "Words describing the tool, or its exact name (mcp__server__tool)." },
        limit: { type: "integer", minimum: 1, maximum: 20, description: "How many tools to load (default 5)." },
      },
      required: ["query"],
    } as AnyAgentTool["parameters"],
    async execute(args: { query: string; limit?: number }) {
      const found = rankTools(all, args.query).slice(0, args.limit ?? 5);
      if (found.length === 0) {
        return {
          content: [
            {
              type: "text",
              text: `No tool matches "${args.query}". Try other words; ${all.length} tools are available.`,
            },
          ],
        };
      }
      for (const tool of found) loaded.add(tool.name);
      options.onLoad();
      const lines = found.map((tool) => {
        const properties = Object.keys(((tool.parameters as { properties?: object }).properties ?? {}) as object);
        return `- ${tool.name}(${properties.join(", ")}): ${tool.description.split("\n")[0]}`;
      });
      return {
        content: [
          {
            type: "text",
            text: `Loaded ${found.length} tool(s); call them directly from your next step:\n${lines.join("\n")}`,
          },
        ],
      };
    },
  };
  return {
    select(tools) {
      all = tools;
      if (estimateToolTokens(tools) <= threshold) return [...tools];
      return [searchTool, ...tools.filter((tool) => loaded.has(tool.name))];
    },
  };
}

/** Tools ordered by how many query words their name and description contain (name hits count double). */
function rankTools(tools: readonly AnyAgentTool[], query: string): AnyAgentTool[] {
  const exact = tools.find((tool) => tool.name === query.trim());
  if (exact) return [exact];
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1);
  const scored = tools.map((tool) => {
    const name = tool.name.toLowerCase();
    const description = tool.description.toLowerCase();
    const score = words.reduce(
      (sum, word) => sum + (name.includes(word) ? 2 : 0) + (description.includes(word) ? 1 : 0),
      0,
    );
    return { tool, score };
  });
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score)
    .map((entry) => entry.tool);
}

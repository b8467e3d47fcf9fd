import type { AnyAgentTool } from "@gyre/agent";
import { describe, expect, it } from "vitest";
import type { McpConnection } from "../mcp/mcp-connection.js";
import { createMcpAgentTool } from "../mcp/mcp-tool.js";
import { isWithheldInPlanMode } from "./plan-mode.js";

const connection = { name: "docs" } as McpConnection;
const mcpTool = (name: string, readOnlyHint?: boolean) =>
  createMcpAgentTool(connection, {
    name,
    inputSchema: { type: "object" },
    ...(readOnlyHint === undefined ? {} : { annotations: { readOnlyHint } }),
  });
const builtIn = (name: string) => ({ name }) as AnyAgentTool;

describe("isWithheldInPlanMode", () => {
  it("withholds write and edit but keeps the reading tools and bash", () => {
    expect(["write", "edit"].map((name) => isWithheldInPlanMode(builtIn(name)))).toEqual([true, true]);
    for (const name of ["read", "bash", "grep", "find", "ls", "todo", "task", "web_fetch"]) {
      expect(isWithheldInPlanMode(builtIn(name)), name).toBe(false);
    }
  });

  it("keeps an MCP tool only when its server marks it read-only", () => {
    expect(isWithheldInPlanMode(mcpTool("search", true))).toBe(false);
    expect(isWithheldInPlanMode(mcpTool("delete_page", false))).toBe(true);
    expect(isWithheldInPlanMode(mcpTool("unannotated"))).toBe(true);
  });
});

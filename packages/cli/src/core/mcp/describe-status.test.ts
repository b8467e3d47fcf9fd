import { describe, expect, it } from "vitest";
import { describeConnectingServers } from "./describe-status.js";
import type { McpServerStatus } from "./types.js";

const server = (name: string, state: McpServerStatus["state"]): McpServerStatus => ({
  name,
  scope: "user",
  transport: "stdio",
  state,
  toolCount: 0,
  stderrTail: [],
  restarts: 0,
});

describe("the start-up notice of connecting MCP servers", () => {
  it("says its tools for one server and their tools for several", () => {
    expect(describeConnectingServers([server("everything", "connecting"), server("done", "connected")])).toBe(
      'Connecting to MCP server "everything" in the background; its tools join when ready. /mcp shows the state.',
    );
    expect(describeConnectingServers([server("everything", "connecting"), server("proj", "connecting")])).toBe(
      "Connecting to 2 MCP servers (everything, proj) in the background; their tools join when ready. /mcp shows the state.",
    );
  });

  it("is undefined when no server is connecting", () => {
    expect(describeConnectingServers([server("done", "connected")])).toBeUndefined();
  });
});

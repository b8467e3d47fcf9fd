/**
 * One server's state in words, the same in the TUI's `/mcp` and its start-up notice: connecting,
 * restarting (attempt n), ready with N tools, failed with the reason, closed, disabled.
 */
import type { McpServerStatus } from "./types.js";

/** "ready with 3 tools", "restarting (attempt 2)", "failed: <reason>", … */
export function describeServerState(status: McpServerStatus): string {
  switch (status.state) {
    case "connected":
      return `ready with ${status.toolCount} tool${status.toolCount === 1 ? "" : "s"}`;
    case "connecting":
      return status.restarts > 0 ? `restarting (attempt ${status.restarts})` : "connecting";
    case "failed":
      return `failed: ${status.error ?? "unknown error"}`;
    case "disabled":
      return `disabled: ${status.error ?? "its configuration cannot be used"}`;
    default:
      return status.state;
  }
}

/** The notice that a server is ready, the same whether it comes live or at the screen's start. */
export function describeConnected(name: string, toolCount: number): string {
  return `MCP server "${name}" connected with ${toolCount} tools.`;
}

/** The start-up notice while servers connect in the background; undefined when none is connecting. */
export function describeConnectingServers(statuses: readonly McpServerStatus[]): string | undefined {
  const names = statuses.filter((status) => status.state === "connecting").map((status) => status.name);
  if (names.length === 0) return undefined;
  const which =
    names.length === 1
      ? `MCP server "${names[0]}" in the background; its tools join`
      : `${names.length} MCP servers (${names.join(", ")}) in the background; their tools join`;
  return `Connecting to ${which} when ready. /mcp shows the state.`;
}

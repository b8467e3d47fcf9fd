/**
 * The spine of gyre's MCP client (docs/design/mcp.md): server configurations as read from `.mcp.json`
 * files (the format Claude Code reads) and the state of a connection as the UI and
 * `gyre mcp list` show it. Plain JSON only; nothing here imports the MCP SDK.
 */

/** Where a server's configuration came from; later scopes override earlier ones by name. */
export type McpScope = "user" | "project" | "flag";

/** Options gyre adds to the Claude Code format; every one is optional. */
export type McpServerLimits = {
  /** How long one tool call may take before it is cancelled (default 60 s). */
  toolTimeoutMs?: number;
  /** How long connecting may take before the server is reported and left out (default: the run's). */
  startupTimeoutMs?: number;
};

export type McpStdioServerConfig = McpServerLimits & {
  type: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
};

export type McpRemoteServerConfig = McpServerLimits & {
  /** `http`: streamable HTTP, falling back to legacy SSE when the server does not speak it. */
  type: "http" | "sse";
  url: string;
  headers: Record<string, string>;
};

export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig;

/** A configured server, with where it came from (the file names the scope and the file). */
export type McpServerEntry = {
  name: string;
  scope: McpScope;
  file: string;
  config: McpServerConfig;
};

/**
 * A server's life: `connecting` (first connect or a restart), `connected`, `failed` (connect
 * failed or the restarts ran out; `error` says why), `closed` (gyre shut it down), `disabled`
 * (its configuration could not be used, e.g. an unset variable; `error` says which).
 */
export type McpServerState = "connecting" | "connected" | "failed" | "closed" | "disabled";

/** What `gyre mcp list` and the UIs show of one server. */
export type McpServerStatus = {
  name: string;
  scope: McpScope;
  transport: "stdio" | "http" | "sse";
  state: McpServerState;
  toolCount: number;
  error?: string;
  /** The last lines the server wrote to stderr (bounded). */
  stderrTail: string[];
  restarts: number;
};

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
  /**
   * What a server's elicitation gets when nobody can answer (print and JSON mode): `decline`
   * (the default), or `defaults`, accepting with the defaults its schema gives (declined when a
   * required field has none).
   */
  elicitation?: "decline" | "defaults";
};

export type McpStdioServerConfig = McpServerLimits & {
  type: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
};

/**
 * How gyre logs in to a remote server (docs/mcp.md, "OAuth"): all optional. Without them gyre
 * registers itself dynamically at the server's authorization server.
 */
export type McpOAuthConfig = {
  /** A client registered in advance at the authorization server (for servers without dynamic registration). */
  clientId?: string;
  /** That client's secret, sent with HTTP Basic (or in the body when the server only takes that). */
  clientSecret?: string;
  /** An HTTPS URL of gyre's client metadata document, used as the client id where the server supports it. */
  clientMetadataUrl?: string;
  /** The fixed 127.0.0.1 port of the login's callback (a pre-registered redirect URI names one). */
  callbackPort?: number;
};

export type McpRemoteServerConfig = McpServerLimits & {
  /** `http`: streamable HTTP, falling back to legacy SSE when the server does not speak it. */
  type: "http" | "sse";
  url: string;
  headers: Record<string, string>;
  oauth?: McpOAuthConfig;
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

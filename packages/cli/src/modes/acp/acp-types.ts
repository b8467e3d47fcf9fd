/**
 * What the ACP mode asks of the command that starts it (docs/acp.md): a way to open one gyre
 * session per editor session. The command builds it the way the CLI builds a run; the mode only
 * drives the `AgentSession` it gets back.
 */
import type { AgentSession } from "../../core/agent-session.js";
import type { ToolFileSystem } from "../../core/tools/tool-fs.js";
import type { UserInterface } from "../../core/user-interface.js";

/** Claude Code's `.mcp.json` server shape, as gyre's MCP config reads it. */
export type McpServerConfigJson = Record<string, unknown>;

export type AcpSessionRequest = {
  /** The editor's workspace folder (absolute). */
  cwd: string;
  /** The editor's MCP servers, by name, in gyre's config format; merged after the user's. */
  mcpServers: Record<string, McpServerConfigJson>;
  /** A session id (or id prefix) to continue in place; a new session when absent. */
  load?: string;
  /** Start in plan mode (a loaded session that was in plan mode when it was left). */
  plan?: boolean;
  /** How the session asks the editor: approvals, questions, notices. */
  ui: UserInterface;
  /** The file tools' file system: the editor's, when it offers `fs` (its unsaved buffers). */
  fileSystem?: ToolFileSystem;
};

export type OpenedAcpSession = {
  session: AgentSession;
  /** Start-up problems and MCP start-up messages the editor should see. */
  notices: string[];
  /** Ends the session and everything it started. */
  dispose(): Promise<void>;
};

export type OpenAcpSession = (request: AcpSessionRequest) => Promise<OpenedAcpSession>;

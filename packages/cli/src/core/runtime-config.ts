import type { ThinkingLevel } from "@gyre/ai";
import type { Settings } from "./config/settings.js";
import type { ExtensionMode } from "./extensions/types.js";
import type { ApprovalMode } from "./permissions/approval-gate.js";
import type { SandboxMode } from "./sandbox/types.js";
import type { BuiltInToolName } from "./tools/tool-names.js";

/** Which session a run continues. */
export type SessionChoice =
  /** A new session file in `$GYRE_HOME/sessions`. */
  | { kind: "new" }
  /** Nothing written (`--no-session`). */
  | { kind: "memory" }
  /** The newest session of the folder (a new one if there is none); `fork` continues in a copy. */
  | { kind: "continue"; fork: boolean }
  /** The session a path or id prefix names; `fork` continues in a copy. */
  | { kind: "open"; pathOrId: string; fork: boolean };

/**
 * What a run is asked to be, as plain data: what `createRuntime` needs, whoever builds it (the
 * CLI maps its flags to this; an embedder writes one). Unset fields fall back to settings.json
 * and then the built-in defaults.
 */
export type RuntimeConfig = {
  mode: ExtensionMode;
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  /** A file whose first line is the API key (`--api-key-file`); read at start-up, wins over `apiKey`. */
  apiKeyFile?: string;
  thinking?: ThinkingLevel;
  /** Built-in tools to enable, or "none"; default: settings, then `DEFAULT_TOOL_NAMES`. */
  tools?: readonly BuiltInToolName[] | "none";
  systemPrompt?: string;
  appendSystemPrompt?: string;
  /** Budgets given for this run; settings fill the rest. */
  budgets: { maxTurns?: number; maxCostUsd?: number };
  session: SessionChoice;
  /** Extension files to load besides the discovered ones; `discover: false` loads only `paths`. */
  extensions: { paths: readonly string[]; discover: boolean };
  /** Folders outside the workspace the file tools may use. */
  allowPaths: readonly string[];
  /** Trust the project folder without asking. */
  trust: boolean;
  /** Read a Claude Code setup (`--claude-compat`; else the `claudeCompat` setting; docs/claude-compat.md). */
  claudeCompat?: boolean;
  /** Settings that win over settings.json, field by field at the top level (an embedder's own). */
  settings?: Settings;
  /**
   * MCP servers: `configFiles` are read after `$GYRE_HOME/mcp.json` and the trusted project's
   * `.mcp.json`; `enabled: false` starts none. Default: the two files, enabled.
   */
  mcp?: { configFiles: readonly string[]; enabled: boolean };
  /** The faux provider's script (tests and demos). */
  fauxScript?: string;
  /** What bash may touch (docs/design/safety.md); default: settings, then workspace-write. */
  sandbox?: SandboxMode;
  /** Network inside the sandbox. */
  allowNetwork?: boolean;
  /** Adds the provider's server-side web search tool to model calls (`--web-search`). */
  webSearch?: boolean;
  /** Who decides calls needing approval; default ask (interactive, rpc) or deny (print, json). */
  approval?: ApprovalMode;
  /** Start in plan mode: read-only sandbox, write/edit withheld. */
  plan?: boolean;
};

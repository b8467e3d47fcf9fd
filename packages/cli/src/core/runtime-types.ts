// The types of start-up (docs/design/session.md): what a runtime is given (`RuntimeIo`), what its
// first step settles (`RuntimeBase`, load-runtime-base.ts) and what `createRuntime`
// (create-runtime.ts) hands back. create-runtime.ts re-exports them; import them from there.
import type { AnyAgentTool } from "@gyre/agent";
import type { Model, ModelRegistry, StreamFunction } from "@gyre/ai";
import type { AgentSession } from "./agent-session.js";
import type { WorkspaceCheckpoints } from "./checkpoints/workspace-checkpoints.js";
import type { LoadedClaudeSetup } from "./claude-compat/claude-compat.js";
import type { Settings } from "./config/settings.js";
import type { ExtensionRunner } from "./extensions/extension-runner.js";
import type { RuntimeResources } from "./extensions/load-runtime-resources.js";
import type { ProjectInfo, RuntimeNotice } from "./inspect-project.js";
import type { McpManager } from "./mcp/mcp-manager.js";
import type { Safety } from "./permissions/create-safety.js";
import type { SecretRegistry } from "./session/redact-secrets.js";
import type { SessionJournals } from "./session/session-journal.js";
import type { TodoStore } from "./tools/todo-tool.js";
import type { ToolFileSystem } from "./tools/tool-fs.js";
import type { UserInterface } from "./user-interface.js";

/** Where a runtime runs and how it reaches the user. */
export type RuntimeIo = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /**
   * How core code asks the user: extensions' questions, and (in interactive mode) whether to
   * trust the project folder. Default: headless (every question declined).
   */
  ui?: UserInterface;
  /** The host's own flag names, which extensions may not register. */
  reservedFlags?: ReadonlySet<string>;
  /** A model object to use instead of resolving `config.provider`/`config.model` (an embedder's own). */
  model?: Model;
  /** Tools besides the built-in and extension ones; one with a built-in's name replaces it. */
  customTools?: readonly AnyAgentTool[];
  /** Replaces @gyre/ai `stream` for every model call of the session. */
  streamFn?: StreamFunction;
  /**
   * Where models.json providers are registered and models looked up. Default: a registry of the
   * runtime's own, so two runtimes in one process never see each other's custom providers.
   */
  models?: ModelRegistry;
  /** The session's first prompt waits for the MCP servers (the SDK; the CLI waits itself, headless only). */
  waitForMcp?: boolean;
  /** Where the session's lines go before its file (a fleet worker's Redis journal). */
  journals?: SessionJournals;
  /**
   * The session's own secret registry (the SDK: one per session, so two sessions share none);
   * default the process's, which the CLI's output redactors read.
   */
  secrets?: SecretRegistry;
  /** The file system read, write, edit and ls use (an editor's buffers over ACP); default node:fs. */
  fileSystem?: ToolFileSystem;
};

/** What start-up has settled before the model and session: home, project, settings, extensions. */
export type RuntimeBase = {
  home: string;
  project: ProjectInfo;
  settings: Settings;
  resources: RuntimeResources;
  /** Start-up notices so far; extension load failures are added as they happen. */
  notices: RuntimeNotice[];
  /** The Claude Code setup read with `--claude-compat` (docs/claude-compat.md). */
  claude?: LoadedClaudeSetup;
};

export type Runtime = {
  session: AgentSession;
  /** Workspace checkpoints: rewind previews and /diff (the rewind itself goes through the session). */
  checkpoints: WorkspaceCheckpoints;
  model: Model;
  /** The providers and models this runtime knows (built-ins and its models.json). */
  models: ModelRegistry;
  cwd: string;
  gyreHome: string;
  settings: Settings;
  trusted: boolean;
  contextFiles: string[];
  /** What the user should hear about (trust, skills, extensions, skipped or damaged session lines). */
  notices: RuntimeNotice[];
  /** Loaded extensions; undefined when none loaded. */
  extensions: ExtensionRunner | undefined;
  skills: RuntimeResources["skills"];
  templates: RuntimeResources["templates"];
  /** Theme files of installed packages (the TUI's `theme` setting may name one). */
  themeFiles: string[];
  /** The sandbox, rules and approval gate of this run (plan mode switches here). */
  safety: Safety;
  /** The todo list the todo tool writes (empty when the tool is off). */
  todos: TodoStore;
  /** The MCP servers, connecting in the background; undefined when none is configured. Close it after the session. */
  mcp: McpManager | undefined;
  /** `/reload`: settings, skills, templates, context files and extensions read again; one line per change. Not while running. */
  reload(): Promise<string[]>;
};

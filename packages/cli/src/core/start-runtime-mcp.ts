// The MCP step of start-up (create-runtime.ts): the configured servers start connecting, and their
// notices wait for the session that will show them.
import type { Model, ModelRegistry, StreamFunction } from "@gyre/ai";
import { version } from "../version.js";
import { resolveApiKey } from "./config/resolve-api-key.js";
import type { RuntimeModel } from "./config/resolve-runtime-model.js";
import type { Settings } from "./config/settings.js";
import { CliError } from "./errors.js";
import type { RuntimeNotice } from "./inspect-project.js";
import type { McpManager } from "./mcp/mcp-manager.js";
import { startMcp } from "./mcp/start-mcp.js";
import type { RuntimeConfig } from "./runtime-config.js";
import type { UserInterface } from "./user-interface.js";

/** What the MCP step reads. */
export type RuntimeMcpInput = {
  config: RuntimeConfig;
  settings: Settings;
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  trusted: boolean;
  ui?: UserInterface;
  streamFn?: StreamFunction;
  /** The start-up model and key; servers' sampling requests use the session's model once there is one. */
  model: RuntimeModel;
  models: ModelRegistry;
  /** The session's model now (sampling follows `/model`). */
  currentModel: () => Model;
};

/** The MCP servers of a run and where their notices go. */
export type RuntimeMcp = {
  /** Connecting in the background; undefined when no server is configured. */
  manager: McpManager | undefined;
  /**
   * Start-up problems: files or servers that could not be used, and the servers' warnings until
   * `reportTo` is called (filled in place; "connected" news is dropped).
   */
  notices: RuntimeNotice[];
  /** From now on the servers' notices go to `notice` (the session) instead of `notices`. */
  reportTo(notice: (text: string, level: "info" | "warning") => void): void;
};

/** Starts the configured MCP servers. Throws a `CliError` (bad usage) when a `--mcp-config` file is missing or broken. */
export async function startRuntimeMcp(input: RuntimeMcpInput): Promise<RuntimeMcp> {
  const { config, settings, model, models, env } = input;
  const notices: RuntimeNotice[] = [];
  // Until the session exists, warnings wait in the runtime's notices; "connected" news is dropped.
  let report = (text: string, level: "info" | "warning" = "warning"): void => {
    // A problem, so quiet headless runs print it too: it changes which tools the run has.
    if (level === "warning") notices.push({ level: "problem", text });
  };
  const mcp = await startMcp({
    gyreHome: input.home,
    cwd: input.cwd,
    env,
    trusted: input.trusted,
    trustFlag: config.trust,
    configFiles: [...(config.mcp?.configFiles ?? [])],
    noMcp: config.mcp?.enabled === false || config.tools === "none",
    clientVersion: version,
    ...(settings.mcpStartupTimeoutMs ? { startupTimeoutMs: settings.mcpStartupTimeoutMs } : {}),
    ...(input.ui ? { ui: input.ui } : {}),
    onNotice: (text, level) => report(text, level),
    sampling: {
      policy: settings.mcpSampling ?? "ask",
      model: input.currentModel,
      apiKey: (provider) =>
        provider === model.model.provider ? model.apiKey : resolveApiKey({ provider, env, models }),
      ...(input.streamFn ? { streamFn: input.streamFn } : {}),
    },
  }).catch((error: Error) => {
    throw new CliError("bad_usage", error.message);
  });
  notices.push(...mcp.warnings.map((text): RuntimeNotice => ({ level: "warning", text })));
  return {
    manager: mcp.manager,
    notices,
    reportTo: (notice) => {
      report = (text, level = "warning") => notice(text, level);
    },
  };
}

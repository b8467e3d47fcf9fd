import type { AnyAgentTool } from "@gyre/agent";
import type { Model, ThinkingLevel } from "@gyre/ai";
import { AgentSession } from "./agent-session.js";
import { WorkspaceCheckpoints } from "./checkpoints/workspace-checkpoints.js";
import { getSessionsDir } from "./config/paths.js";
import { resolveApiKey } from "./config/resolve-api-key.js";
import { resolveRuntimeModel } from "./config/resolve-runtime-model.js";
import { loadSettings, type Settings } from "./config/settings.js";
import type { ExtensionRunner } from "./extensions/extension-runner.js";
import { loadRuntimeResources, mergeTools, type RuntimeResources } from "./extensions/load-runtime-resources.js";
import { createInputResolver } from "./extensions/resolve-input.js";
import { inspectProject, type ProjectInfo, type RuntimeNotice, resolveGyreHome } from "./inspect-project.js";
import { openSessionStore } from "./open-session.js";
import type { RuntimeConfig } from "./runtime-config.js";
import { addProcessSecret } from "./session/redact-secrets.js";
import { buildRuntimeSystemPrompt } from "./system-prompt/build-runtime-system-prompt.js";
import { createCodingTools } from "./tools/index.js";
import { DEFAULT_TOOL_NAMES, isCodingToolName } from "./tools/tool-names.js";
import type { UserInterface } from "./user-interface.js";

export type { RuntimeNotice } from "./inspect-project.js";

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
};

/** What start-up has settled before the model and session: home, project, settings, extensions. */
export type RuntimeBase = {
  home: string;
  project: ProjectInfo;
  settings: Settings;
  resources: RuntimeResources;
  /** Start-up notices so far; extension load failures are added as they happen. */
  notices: RuntimeNotice[];
};

export type Runtime = {
  session: AgentSession;
  /** Workspace checkpoints: rewind previews and /diff (the rewind itself goes through the session). */
  checkpoints: WorkspaceCheckpoints;
  model: Model;
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
};

/**
 * Step one of start-up: `$GYRE_HOME`, the project and its trust, settings, then extensions,
 * skills and templates (in that order: trust decides which settings and extensions load).
 * Throws a `CliError` with a sentence that says what to do.
 */
export async function loadRuntimeBase(config: RuntimeConfig, io: RuntimeIo): Promise<RuntimeBase> {
  const home = await resolveGyreHome(io.env);
  const project = await inspectProject({
    cwd: io.cwd,
    home,
    trust: config.trust,
    ...(io.ui && config.mode === "interactive" ? { ui: io.ui } : {}),
  });
  const settings = (await loadSettings({ gyreHome: home, cwd: io.cwd, includeProject: project.trusted })).settings;
  const notices: RuntimeNotice[] = [...project.notices];
  const timeout = Number(io.env.GYRE_EXTENSION_TIMEOUT_MS);
  const resources = await loadRuntimeResources({
    config,
    cwd: io.cwd,
    gyreHome: home,
    trusted: project.trusted,
    ...(io.ui ? { ui: io.ui } : {}),
    ...(io.reservedFlags ? { reservedFlags: io.reservedFlags } : {}),
    ...(Number.isFinite(timeout) && timeout > 0 ? { timeoutMs: timeout } : {}),
    // Extension failures are shown even in quiet headless runs: the user asked for the extension.
    report: (text) => notices.push({ level: "problem", text }),
  });
  notices.push(...resources.warnings.map((text): RuntimeNotice => ({ level: "warning", text })));
  return { home, project, settings, resources, notices };
}

/**
 * Step two: model and key, tools, system prompt and session, on top of `base`. `config` may
 * differ from the one `base` was loaded with only in what extension flags changed.
 */
export async function createRuntime(config: RuntimeConfig, base: RuntimeBase, io: RuntimeIo): Promise<Runtime> {
  const { home, project, settings, resources } = base;
  const extensions = resources.extensions;
  const model = await resolveRuntimeModel({ config, settings, home, env: io.env });
  const extensionTools = extensions?.getTools() ?? [];
  const tools = mergeTools(selectTools(config, settings, resources, io.cwd), extensionTools);
  const systemPrompt = await buildRuntimeSystemPrompt({
    config,
    project,
    tools,
    extensionTools,
    skills: resources.skills,
    extensions,
  });
  // The key may have come from a flag or a custom env var no redaction rule knows by name.
  addProcessSecret(model.apiKey);
  const sessionsDir = getSessionsDir(home);
  const opened = await openSessionStore(config.session, { cwd: io.cwd, sessionsDir });
  const restored = opened.store.buildContext();
  const thinkingLevel: ThinkingLevel = config.thinking ?? restored.thinkingLevel ?? settings.thinking ?? "off";
  const checkpoints = new WorkspaceCheckpoints({ gyreHome: home, workspace: io.cwd });
  const session = new AgentSession({
    checkpoints,
    beforeToolCall: checkpoints.turns.beforeToolCall,
    model: model.model,
    apiKey: model.apiKey,
    systemPrompt,
    thinkingLevel,
    tools,
    messages: restored.messages,
    store: opened.store,
    sessionsDir,
    budgets: mergeBudgets(config, settings),
    ...(settings.retry ? { retry: settings.retry } : {}),
    ...(settings.idleTimeoutMs ? { idleTimeoutMs: settings.idleTimeoutMs } : {}),
    ...(settings.compaction ? { compaction: settings.compaction } : {}),
    getApiKey: (provider) => resolveApiKey({ provider, env: io.env }),
    ...(extensions ? { extensions } : {}),
    resolveInput: createInputResolver({
      ...(extensions ? { extensions } : {}),
      templates: resources.templates,
      skills: resources.skills,
    }),
  });
  const { sessionId, sessionFile } = session.state;
  await extensions?.emit({ type: "session_start", sessionId, sessionFile, cwd: io.cwd });
  return {
    session,
    checkpoints,
    model: model.model,
    cwd: io.cwd,
    gyreHome: home,
    settings,
    trusted: project.trusted,
    contextFiles: project.contextFiles.map((file) => file.path),
    notices: [...base.notices, ...opened.notices],
    extensions,
    skills: resources.skills,
    templates: resources.templates,
  };
}

/** The built-in tools a run gets: the config's, else settings', else the defaults; "none" for none. */
function selectTools(
  config: RuntimeConfig,
  settings: Settings,
  resources: RuntimeResources,
  cwd: string,
): AnyAgentTool[] {
  if (config.tools === "none") return [];
  return createCodingTools({
    cwd,
    tools: config.tools ?? settings.tools?.filter(isCodingToolName) ?? DEFAULT_TOOL_NAMES,
    allowedPaths: [...config.allowPaths, ...(settings.allowedPaths ?? []), ...resources.readablePaths],
    ...(settings.bashTimeoutMs ? { bash: { defaultTimeoutSeconds: settings.bashTimeoutMs / 1000 } } : {}),
  });
}

/** The run's budgets: the config's, then settings'. A budget of 0 or unset is no budget. */
function mergeBudgets(config: RuntimeConfig, settings: Settings) {
  const maxTurns = config.budgets.maxTurns ?? settings.maxTurns;
  const maxCostUsd = config.budgets.maxCostUsd ?? settings.maxCost;
  return {
    ...(maxTurns ? { maxTurns } : {}),
    ...(maxCostUsd ? { maxCostUsd } : {}),
    ...(settings.maxTotalTokens ? { maxTotalTokens: settings.maxTotalTokens } : {}),
    ...(settings.maxWallTimeMs ? { maxWallTimeMs: settings.maxWallTimeMs } : {}),
  };
}

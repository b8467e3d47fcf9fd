import { resolve } from "node:path";
import type { AgentLoopConfig, AnyAgentTool } from "@gyre/agent";
import { createModelRegistry, type Model, type ModelRegistry, type StreamFunction, type ThinkingLevel } from "@gyre/ai";
import { version } from "../version.js";
import { AgentSession } from "./agent-session.js";
import { WorkspaceCheckpoints } from "./checkpoints/workspace-checkpoints.js";
import {
  isClaudeCompat,
  type LoadedClaudeSetup,
  loadClaudeSetup,
  withClaudeRules,
} from "./claude-compat/claude-compat.js";
import { CommandScopes } from "./claude-compat/command-scope.js";
import { readApiKeyFile } from "./config/api-key-file.js";
import { getSessionsDir } from "./config/paths.js";
import { resolveApiKey } from "./config/resolve-api-key.js";
import { customBaseUrl } from "./config/resolve-model.js";
import { type RuntimeModel, resolveRuntimeModel } from "./config/resolve-runtime-model.js";
import { loadSettings, type Settings } from "./config/settings.js";
import { createHarnessTools, type HarnessTools, restoreTodos } from "./create-harness-tools.js";
import { CliError } from "./errors.js";
import type { ExtensionRunner } from "./extensions/extension-runner.js";
import {
  discoverExtensionFiles,
  loadRuntimeResources,
  mergeTools,
  type RuntimeResources,
} from "./extensions/load-runtime-resources.js";
import { createInputResolver } from "./extensions/resolve-input.js";
import { createBudgetQuestion } from "./governor/budget-question.js";
import { createGovernor } from "./governor/governor.js";
import {
  createSessionHooks,
  gateHooksOf,
  reloadSessionHooks,
  withPreToolUse,
  withPromptHooks,
} from "./hooks/create-session-hooks.js";
import { inspectProject, type ProjectInfo, type RuntimeNotice, resolveGyreHome } from "./inspect-project.js";
import type { McpManager } from "./mcp/mcp-manager.js";
import { attachMcpTools, createMcpPromptExpander, startMcp, withOptionalMentions } from "./mcp/start-mcp.js";
import { openSessionStore } from "./open-session.js";
import { installSettingsPackages } from "./packages/startup-install.js";
import { createSafety, type Safety } from "./permissions/create-safety.js";
import { isWithheldInPlanMode } from "./permissions/plan-mode.js";
import { reloadRuntime } from "./reload-runtime.js";
import { createExtraOps } from "./review/extra-ops.js";
import type { RuntimeConfig } from "./runtime-config.js";
import { createHostAllowlist } from "./sandbox/host-allowlist.js";
import { createRedactor, processSecretRegistry, type SecretRegistry } from "./session/redact-secrets.js";
import type { SessionJournals } from "./session/session-journal.js";
import type { SessionContext, SessionManager } from "./session/session-manager.js";
import type { SessionEvent } from "./session-events.js";
import { buildRuntimeSystemPrompt } from "./system-prompt/build-runtime-system-prompt.js";
import { withNestedContext } from "./system-prompt/nested-context-files.js";
import { type SessionTelemetry, startTelemetry } from "./telemetry/start-telemetry.js";
import { type BackgroundShells, createBackgroundShells, createCodingTools } from "./tools/index.js";
import type { TodoStore } from "./tools/todo-tool.js";
import type { ToolFileSystem } from "./tools/tool-fs.js";
import {
  type BuiltInToolName,
  DEFAULT_HARNESS_TOOL_NAMES,
  DEFAULT_TOOL_NAMES,
  isBuiltInToolName,
  isCodingToolName,
  isHarnessToolName,
} from "./tools/tool-names.js";
import type { UserInterface } from "./user-interface.js";
import { createUserShell } from "./user-shell.js";

export type { RuntimeNotice } from "./inspect-project.js";

/** Start-up waits this long in all for packages the `packages` setting names (core/packages/startup-install.ts). */
const packagesStartupWaitMs = 20_000;

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
  const loaded = await loadSettings({ gyreHome: home, cwd: io.cwd, includeProject: project.trusted });
  const settings: Settings = { ...loaded.settings, ...config.settings };
  const notices: RuntimeNotice[] = [...project.notices];
  const claude = isClaudeCompat(config.claudeCompat, settings.claudeCompat)
    ? await loadClaudeSetup({
        cwd: io.cwd,
        env: io.env,
        trusted: project.trusted,
        loadedContextFiles: project.contextFiles,
      })
    : undefined;
  if (claude) {
    project.contextFiles.push(...claude.contextFiles);
    settings.permissions = withClaudeRules(settings.permissions, claude);
    notices.push(...claude.warnings.map((text): RuntimeNotice => ({ level: "problem", text })));
  }
  // Problems, so quiet headless runs show them too: a setting not applied, a package (not) installed.
  const problems = (texts: string[]) =>
    notices.push(...texts.map((text): RuntimeNotice => ({ level: "problem", text })));
  problems(loaded.warnings);
  const installs = {
    gyreHome: home,
    cwd: io.cwd,
    trusted: project.trusted,
    namedAnywhere: (settings.packages?.length ?? 0) > 0,
    env: io.env,
    deadline: Date.now() + packagesStartupWaitMs,
    ...(io.ui ? { announce: (text: string) => io.ui?.notify(text, "info") } : {}),
  };
  problems(await installSettingsPackages({ ...installs, kind: "user" }));
  const timeout = Number(io.env.GYRE_EXTENSION_TIMEOUT_MS);
  const resources = await loadRuntimeResources({
    config,
    cwd: io.cwd,
    gyreHome: home,
    trusted: project.trusted,
    ...(io.ui ? { ui: io.ui } : {}),
    ...(io.reservedFlags ? { reservedFlags: io.reservedFlags } : {}),
    ...(claude ? { claudeDirs: { skills: claude.setup.skillDirs, commands: claude.setup.commandDirs } } : {}),
    ...(Number.isFinite(timeout) && timeout > 0 ? { timeoutMs: timeout } : {}),
    // Extension failures are shown even in quiet headless runs: the user asked for the extension.
    report: (text) => notices.push({ level: "problem", text }),
  });
  notices.push(...resources.warnings.map((text): RuntimeNotice => ({ level: "warning", text })));
  // After loading: a project's new packages wait for the folder to be trusted again.
  problems(await installSettingsPackages({ ...installs, kind: "project" }));
  return { home, project, settings, resources, notices, ...(claude ? { claude } : {}) };
}

/**
 * Step two: model and key, tools, system prompt and session, on top of `base`. `config` may
 * differ from the one `base` was loaded with only in what extension flags changed.
 */
export async function createRuntime(config: RuntimeConfig, base: RuntimeBase, io: RuntimeIo): Promise<Runtime> {
  const { home, project, settings, resources } = base;
  const extensions = resources.extensions;
  if (config.apiKeyFile) config = { ...config, apiKey: await readApiKeyFileOrExit(config.apiKeyFile) };
  // The session first: `-c` without --provider/--model continues on the model it last used.
  const sessionsDir = getSessionsDir(home);
  const models = io.models ?? createModelRegistry();
  const secrets = io.secrets ?? processSecretRegistry();
  // The session's lines (and its subagents') are redacted with its own secrets and OAuth tokens.
  const redact = io.secrets
    ? createRedactor({ env: io.env, registries: [io.secrets, processSecretRegistry()] })
    : undefined;
  const opened = await openSessionStore(config.session, {
    cwd: io.cwd,
    sessionsDir,
    mode: config.mode,
    ...(io.journals ? { journals: io.journals } : {}),
    ...(redact ? { redact } : {}),
  });
  const restored = opened.store.buildContext();
  const model: RuntimeModel = io.model
    ? {
        model: io.model,
        apiKey: resolveApiKey({
          provider: io.model.provider,
          ...(config.apiKey ? { explicit: config.apiKey } : {}),
          env: io.env,
          models,
        }),
      }
    : await resolveRuntimeModel({
        config: withSessionModel(config, restored.model),
        settings,
        home,
        env: io.env,
        models,
      });
  recordModel(opened.store, model.model, restored.model, models);
  // Tools added in code count as extension tools: their description stands in the prompt.
  const extensionTools = [...(extensions?.getTools() ?? []), ...(io.customTools ?? [])];
  const mcpNotices: RuntimeNotice[] = [];
  // Until the session exists, warnings wait in the runtime's notices; "connected" news is dropped.
  let reportMcp = (text: string, level: "info" | "warning" = "warning"): void => {
    // A problem, so quiet headless runs print it too: it changes which tools the run has.
    if (level === "warning") mcpNotices.push({ level: "problem", text });
  };
  const mcp = await startMcp({
    gyreHome: home,
    cwd: io.cwd,
    env: io.env,
    trusted: project.trusted,
    trustFlag: config.trust,
    configFiles: [...(config.mcp?.configFiles ?? [])],
    noMcp: config.mcp?.enabled === false || config.tools === "none",
    clientVersion: version,
    ...(settings.mcpStartupTimeoutMs ? { startupTimeoutMs: settings.mcpStartupTimeoutMs } : {}),
    ...(io.ui ? { ui: io.ui } : {}),
    onNotice: (text, level) => reportMcp(text, level),
    sampling: {
      policy: settings.mcpSampling ?? "ask",
      model: () => session?.state.model ?? model.model,
      apiKey: (provider) =>
        provider === model.model.provider ? model.apiKey : resolveApiKey({ provider, env: io.env, models }),
      ...(io.streamFn ? { streamFn: io.streamFn } : {}),
    },
  }).catch((error: Error) => {
    throw new CliError("bad_usage", error.message);
  });
  mcpNotices.push(...mcp.warnings.map((text): RuntimeNotice => ({ level: "warning", text })));
  // The user's shell hooks (docs/hooks.md); a project's only once its folder is trusted.
  const { hooks, warnings: hookWarnings } = await createSessionHooks({
    gyreHome: home,
    cwd: io.cwd,
    trusted: project.trusted,
    env: io.env,
    session: () => ({
      id: session?.state.sessionId ?? opened.store.id,
      file: session?.state.sessionFile ?? opened.store.path,
    }),
    permissionMode: () => safety.permissionMode(),
    claudeHooks: base.claude?.hooks ?? [],
  });
  const safety = createSafety({
    config,
    settings,
    cwd: io.cwd,
    gyreHome: home,
    env: io.env,
    ui: io.ui,
    allowPaths: [...config.allowPaths, ...(settings.allowedPaths ?? [])],
    ...(hooks ? { gateHooks: gateHooksOf(hooks) } : {}),
    trusted: project.trusted,
    stopRun: () => void session?.submit({ type: "abort" }),
  });
  const names = selectToolNames(config, settings);
  const governor = createGovernor({ budgets: mergeBudgets(config, settings) });
  let session: AgentSession | undefined;
  // Subagents and the reviewer obey the same rules, approvals and hooks as the main agent; bash is the same sandboxed tool.
  const subagentLoop: Pick<AgentLoopConfig, "getApiKey" | "beforeToolCall" | "afterToolCall"> = {
    getApiKey: (provider) =>
      provider === model.model.provider ? model.apiKey : resolveApiKey({ provider, env: io.env, models }),
    beforeToolCall: withPreToolUse(hooks, (input, signal) => safety.gate.beforeToolCall(input, signal)),
    ...(hooks ? { afterToolCall: (input, signal) => hooks.afterToolCall(input, signal) } : {}),
  };
  const harness = await createHarnessTools({
    names: names.filter(isHarnessToolName),
    cwd: io.cwd,
    home,
    trusted: project.trusted,
    ...(base.claude ? { claudeAgentDirs: base.claude.setup.agentDirs } : {}),
    // A subagent started in plan mode is offered what the main agent is: no write/edit.
    baseTools: () =>
      tools.filter(
        (tool) => tool.name !== "task" && !(safety.permissionMode() === "plan" && isWithheldInPlanMode(tool)),
      ),
    model: () => session?.state.model ?? model.model,
    models,
    governor,
    sessionsDir: config.session.kind === "memory" ? undefined : sessionsDir,
    ...(redact ? { redact } : {}),
    parentSessionFile: () => session?.state.sessionFile,
    webSearch: config.webSearch === true || settings.webSearch === true,
    // A subagent at the tree's budget asks the session's question; the whole tree waits for it.
    pauseAtBudget: (signal) => session?.pauseAtBudget(signal) ?? Promise.resolve(false),
    initialTodos: restoreTodos(restored.messages, opened.store.getBranch()),
    loop: subagentLoop,
    network: {
      allowed: config.allowNetwork === true || settings.sandbox?.network === true,
      allowedDomains: settings.sandbox?.allowedDomains ?? [],
    },
  });
  // bash's background shells (with bash_output, kill_shell): the session ends them before the sandbox.
  const shells = createBackgroundShells({ maxLines: 2000, maxBytes: 50 * 1024, killGraceMs: 2000 });
  const toolDeps = {
    cwd: io.cwd,
    env: io.env,
    safety,
    shells,
    allowPaths: config.allowPaths,
    ...(io.fileSystem ? { fs: io.fileSystem } : {}),
  };
  // Context files of folders below cwd join the results of the file tools that work there.
  const nestedContext = { cwd: io.cwd, project, claudeHome: base.claude?.setup.home };
  const coding = withNestedContext(selectTools(names, settings, resources, toolDeps), nestedContext);
  const selected = [...coding, ...harness.tools];
  // Only with an lsp setting is the language-server code loaded (start-up time; docs/lsp.md).
  const lsp =
    settings.lsp && Object.keys(settings.lsp).length > 0
      ? (await import("./lsp/lsp-tools.js")).attachLsp(selected, { ...toolDeps, servers: settings.lsp })
      : undefined;
  const builtIn = lsp?.tools ?? selected;
  // Probed now, in parallel with the rest of start-up, so the notice comes once and early.
  const sandboxNotice = builtIn.some((tool) => tool.name === "bash") ? safety.startupWarning() : undefined;
  const tools = mergeTools(builtIn, extensionTools);
  const buildPrompt = (runTools: readonly AnyAgentTool[], fromExtensions: readonly AnyAgentTool[]) =>
    buildRuntimeSystemPrompt({
      config,
      project,
      tools: runTools,
      extensionTools: fromExtensions,
      skills: resources.skills,
      extensions,
    });
  await hooks?.sessionStart(config.session.kind === "new" || config.session.kind === "memory" ? "startup" : "resume");
  // The prompt as last built, without the SessionStart context: a later SessionStart (/new, /resume, compaction) rebuilds on it.
  let builtPrompt = "";
  const withStartContext = (prompt: string) => {
    builtPrompt = prompt;
    return hooks ? hooks.withStartContext(prompt) : prompt;
  };
  const systemPrompt = withStartContext(await buildPrompt(tools, extensionTools));
  // The key may have come from a flag or a custom env var no redaction rule knows by name.
  secrets.add(model.apiKey);
  const thinkingLevel: ThinkingLevel = config.thinking ?? restored.thinkingLevel ?? settings.thinking ?? "off";
  const thinkingNotices: RuntimeNotice[] =
    config.thinking && config.thinking !== "off" && !model.model.reasoning
      ? [
          {
            level: "warning",
            text: `${model.model.id} does not support thinking, so --thinking ${config.thinking} has no effect; pick a reasoning model to use it.`,
          },
        ]
      : [];
  const checkpoints = new WorkspaceCheckpoints({
    gyreHome: home,
    workspace: io.cwd,
    ...(settings.checkpoints ? { limits: settings.checkpoints } : {}),
  });
  // The session's info holds this array: the notices gathered below are added to it in place.
  const notices: RuntimeNotice[] = [];
  const runtimeNotices = notices;
  // Off by default and then nothing is loaded (core/telemetry/start-telemetry.ts).
  let telemetry: SessionTelemetry | undefined;
  // `review` (a read-only subagent under plan mode) and `remember` (context files read again).
  const extraOps = createExtraOps(
    {
      cwd: io.cwd,
      model: () => session?.state.model ?? model.model,
      thinkingLevel: () => session?.state.thinkingLevel ?? thinkingLevel,
      // The reading tools whatever the run's list, and its bash (if it has one), which plan mode makes read-only.
      tools: () => [
        ...selectTools(["read", "grep", "find", "ls"], settings, resources, toolDeps),
        ...tools.filter((tool) => tool.name === "bash"),
      ],
      safety,
      budget: governor.budget,
      startRequest: () => governor.startRequest(),
      loop: { ...subagentLoop, ...(io.streamFn ? { streamFn: io.streamFn } : {}) },
    },
    {
      cwd: io.cwd,
      gyreHome: home,
      project,
      // The extension tools in use now (a /reload may have changed them): those not built in.
      applySystemPrompt: async () =>
        session?.setSystemPrompt(
          withStartContext(
            await buildPrompt(
              tools,
              tools.filter((tool) => !builtIn.includes(tool)),
            ),
          ),
        ),
    },
  );
  const allowPaths = [...config.allowPaths, ...(settings.allowedPaths ?? [])];
  const commandScopes = new CommandScopes({ safety, models, cwd: io.cwd, env: io.env, allowPaths });
  session = new AgentSession({
    checkpoints,
    model: model.model,
    apiKey: model.apiKey,
    systemPrompt,
    thinkingLevel,
    tools,
    messages: restored.messages,
    store: opened.store,
    sessionsDir,
    budgets: mergeBudgets(config, settings),
    governor,
    // A person at the terminal or an RPC client (its ui_request) is asked; print and JSON runs stop with reason budget.
    ...(io.ui && (config.mode === "interactive" || config.mode === "rpc")
      ? { askBudget: createBudgetQuestion(io.ui) }
      : {}),
    eventSources: [(emit) => attachHarnessEvents(harness, emit), extraOps.attach],
    ...(settings.retry ? { retry: settings.retry } : {}),
    ...(settings.idleTimeoutMs ? { idleTimeoutMs: settings.idleTimeoutMs } : {}),
    ...(settings.maxToolArgumentBytes ? { maxToolArgumentBytes: settings.maxToolArgumentBytes } : {}),
    ...(config.webSearch || settings.webSearch ? { webSearch: true } : {}),
    ...(settings.compaction ? { compaction: settings.compaction } : {}),
    ...(io.streamFn ? { streamFn: io.streamFn } : {}),
    getApiKey: (provider) => resolveApiKey({ provider, env: io.env, models }),
    ...(extensions ? { extensions } : {}),
    // The safety gate decides first: a blocked call changes nothing, so it needs no checkpoint.
    beforeToolCall: withPreToolUse(hooks, async (input, signal) => {
      const verdict = await safety.gate.beforeToolCall(input, signal);
      if (verdict?.block) return verdict;
      await checkpoints.turns.beforeToolCall(input);
      return verdict;
    }),
    ...(hooks ? { hooks, afterToolCall: (input, signal) => hooks.afterToolCall(input, signal) } : {}),
    // `!cmd` from the editor: the bash tool's sandbox and environment, whichever tools are on.
    userShell: createUserShell({ cwd: io.cwd, env: io.env, sandbox: safety.sandbox }),
    safety,
    secrets,
    ...(mcp.manager ? { mcp: mcp.manager } : {}),
    ...(io.waitForMcp ? { waitForMcp: true } : {}),
    ...(settings.mcpStartupTimeoutMs ? { mcpStartupTimeoutMs: settings.mcpStartupTimeoutMs } : {}),
    todos: harness.todos,
    reload: () => reload(),
    extraOps: extraOps.ops,
    ...(io.ui?.answerApproval ? { answerApproval: io.ui.answerApproval.bind(io.ui) } : {}),
    info: {
      cwd: io.cwd,
      gyreHome: home,
      sessionsDir,
      trusted: project.trusted,
      contextFiles: project.contextFiles.map((file) => file.path),
      notices: runtimeNotices,
      settings,
      skills: resources.skills,
      templates: resources.templates,
      themeFiles: resources.themeFiles,
      startupModel: model.model,
      models,
      extensionPaths: extensions?.extensions.map((extension) => extension.path) ?? [],
      shells,
    },
    // In order of creation; dispose closes them last first.
    owned: [
      { name: "the telemetry exporter", close: () => telemetry?.shutdown() },
      ...(lsp ? [{ name: "the language servers", close: () => lsp.service.close() }] : []),
      ...(mcp.manager ? [{ name: "the MCP servers", close: () => mcp.manager?.close() }] : []),
      { name: "the bash sandbox", close: () => safety.sandbox.dispose() },
      { name: "the background shells", close: () => shells.dispose() },
      ...(hooks ? [{ name: "the SessionEnd hooks", close: () => hooks.sessionEnd(sessionEndReason(config)) }] : []),
    ],
    // A template's allowed-tools and model hold for its prompt (docs/claude-compat.md).
    resolveInput: commandScopes.wrap(
      withPromptHooks(
        hooks,
        withOptionalMentions(
          createInputResolver({
            ...(extensions ? { extensions } : {}),
            templates: resources.templates,
            skills: resources.skills,
            ...(mcp.manager ? { expandMcpPrompt: createMcpPromptExpander(mcp.manager) } : {}),
            expandClaudeCommand: (template, text) => commandScopes.expand(template, text),
          }),
          mcp.manager,
        ),
      ),
    ),
  });
  commandScopes.attach(session);
  if (hooks) {
    hooks.setReporter((text, level) => session.notice("hooks", text, level));
    hooks.setStartContextListener(() => session.setSystemPrompt(withStartContext(builtPrompt)));
    session.subscribe((event) => hooks.onSessionEvent(event));
  }
  const created = session;
  telemetry = await startTelemetry({ env: io.env, settings, subscribe: (listener) => created.subscribe(listener) });
  if (mcp.manager) {
    attachMcpTools(session, tools, mcp.manager);
    reportMcp = (text, level = "warning") => session.notice("mcp", text, level);
  }
  const { sessionId, sessionFile } = session.state;
  await extensions?.emit({ type: "session_start", sessionId, sessionFile, cwd: io.cwd });
  notices.push(
    ...base.notices,
    ...harness.notices,
    ...opened.notices,
    ...(model.warnings ?? []).map((text): RuntimeNotice => ({ level: "problem", text })),
  );
  // A problem, not a warning: quiet headless runs must hear it too (docs/design/safety.md: say so once at start-up).
  const unavailable = await sandboxNotice;
  if (unavailable) notices.push({ level: "problem", text: unavailable });
  const invalidDomains = createHostAllowlist(settings.sandbox?.allowedDomains ?? []).invalid;
  if (invalidDomains.length > 0) {
    notices.push({
      level: "warning",
      text: `sandbox.allowedDomains entries that are not host names are ignored: ${invalidDomains.join("; ")}.`,
    });
  }
  notices.push(
    ...thinkingNotices,
    ...mcpNotices,
    ...hookWarnings.map((text): RuntimeNotice => ({ level: "problem", text })),
  );
  // New deny and ask rules hold from the next call on, not after a restart.
  const reload = async () => {
    const { changes, claude } = await reloadRules();
    safety.setPermissions(withClaudeRules(settings.permissions, claude));
    const sources = { gyreHome: home, cwd: io.cwd, trusted: project.trusted, claudeHooks: claude?.hooks ?? [] };
    changes.push(...(await reloadSessionHooks(hooks, sources)));
    return changes;
  };
  const reloadRules = () =>
    reloadRuntime({
      session,
      gyreHome: home,
      cwd: io.cwd,
      project,
      settings,
      overrides: config.settings ?? {},
      skills: resources.skills,
      templates: resources.templates,
      extensions,
      findExtensions: async () => [
        ...(await discoverExtensionFiles({ config, cwd: io.cwd, gyreHome: home, trusted: project.trusted })),
        ...config.extensions.paths.map((path) => resolve(io.cwd, path)),
      ],
      // In place: the MCP tool updates build on the same list.
      applyTools: (reloaded) => {
        tools.splice(0, tools.length, ...mergeTools(builtIn, [...reloaded, ...(io.customTools ?? [])]));
        session.setTools([...tools, ...(mcp.manager?.tools() ?? [])]);
        return tools;
      },
      rebuildSystemPrompt: async (runTools, reloaded) =>
        withStartContext(await buildPrompt(runTools, [...reloaded, ...(io.customTools ?? [])])),
      claudeCompat: config.claudeCompat,
      env: io.env,
    });
  return {
    reload,
    session,
    checkpoints,
    safety,
    model: model.model,
    models,
    cwd: io.cwd,
    gyreHome: home,
    settings,
    trusted: project.trusted,
    contextFiles: project.contextFiles.map((file) => file.path),
    notices,
    extensions,
    skills: resources.skills,
    templates: resources.templates,
    themeFiles: resources.themeFiles,
    todos: harness.todos,
    mcp: mcp.manager,
  };
}

/**
 * A continued session without --provider or --model runs on the model it last used (and its
 * base URL, when it was not the provider's own); flags still win.
 */
function withSessionModel(config: RuntimeConfig, last: SessionContext["model"]): RuntimeConfig {
  if (!last || config.provider || config.model) return config;
  const baseUrl = last.baseUrl && !config.baseUrl ? { baseUrl: last.baseUrl } : {};
  return { ...config, provider: last.provider, model: last.modelId, ...baseUrl };
}

/** Writes the model in use into the session when it is not the one the session last recorded. */
function recordModel(store: SessionManager, model: Model, last: SessionContext["model"], models: ModelRegistry): void {
  const baseUrl = customBaseUrl(model, models);
  if (last && last.provider === model.provider && last.modelId === model.id && last.baseUrl === baseUrl) return;
  store.appendModelChange(model.provider, model.id, baseUrl);
}

/** SessionEnd's `reason`: a person leaving the TUI, or the run ending otherwise. */
function sessionEndReason(config: RuntimeConfig): string {
  return config.mode === "interactive" ? "prompt_input_exit" : "other";
}

/** The tool names of a run: the config's, else settings', else the defaults. */
function selectToolNames(config: RuntimeConfig, settings: Settings): readonly BuiltInToolName[] {
  if (config.tools === "none") return [];
  return (
    config.tools ?? settings.tools?.filter(isBuiltInToolName) ?? [...DEFAULT_TOOL_NAMES, ...DEFAULT_HARNESS_TOOL_NAMES]
  );
}

function attachHarnessEvents(harness: HarnessTools, emit: (event: SessionEvent) => void): void {
  harness.todos.subscribe((todos) => emit({ type: "todo_update", todos: [...todos] }));
  harness.setSubagentListener((event) => emit({ type: "subagent_event", ...event }));
}

/** The built-in tools a run gets: the config's, else settings', else the defaults; "none" for none. */
function selectTools(
  names: readonly BuiltInToolName[],
  settings: Settings,
  resources: RuntimeResources,
  where: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    safety: Safety;
    shells: BackgroundShells;
    allowPaths: readonly string[];
    fs?: ToolFileSystem;
  },
): AnyAgentTool[] {
  const coding = names.filter(isCodingToolName);
  if (coding.length === 0) return [];
  return createCodingTools({
    cwd: where.cwd,
    tools: coding,
    ...(where.fs ? { fs: where.fs } : {}),
    allowedPaths: [...where.allowPaths, ...(settings.allowedPaths ?? []), ...resources.readablePaths],
    bash: {
      sandbox: where.safety.sandbox,
      shells: where.shells,
      escalation: "gated",
      env: where.env,
      passEnv: settings.sandbox?.passEnv ?? [],
      ...(settings.bashTimeoutMs ? { defaultTimeoutSeconds: settings.bashTimeoutMs / 1000 } : {}),
    },
    ...(settings.maxToolArgumentBytes ? { maxWriteBytes: settings.maxToolArgumentBytes } : {}),
    readDenied: () => where.safety.readDenied(),
  });
}

/** The key in `--api-key-file`; an unreadable or empty file is bad usage. */
async function readApiKeyFileOrExit(path: string): Promise<string> {
  return readApiKeyFile(path).catch((error: Error) => {
    throw new CliError("bad_usage", error.message, { cause: error });
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

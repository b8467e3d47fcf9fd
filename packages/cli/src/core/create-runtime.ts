// Step two of start-up (docs/design/session.md): model and key, tools, system prompt and the
// session, on top of step one (load-runtime-base.ts). Its steps live beside it: the types
// (runtime-types.ts), the model (runtime-model.ts), the MCP servers (start-runtime-mcp.ts), hooks
// and safety (runtime-safety.ts), the built-in tools (select-tools.ts); the rest is below, in order.
import { resolve } from "node:path";
import type { AgentLoopConfig, AnyAgentTool } from "@gyre/agent";
import { createModelRegistry, type ThinkingLevel } from "@gyre/ai";
import { AgentSession } from "./agent-session.js";
import { WorkspaceCheckpoints } from "./checkpoints/workspace-checkpoints.js";
import { withClaudeRules } from "./claude-compat/claude-compat.js";
import { CommandScopes } from "./claude-compat/command-scope.js";
import { getSessionsDir } from "./config/paths.js";
import { resolveApiKey } from "./config/resolve-api-key.js";
import type { Settings } from "./config/settings.js";
import { createHarnessTools, type HarnessTools, restoreTodos } from "./create-harness-tools.js";
import { discoverExtensionFiles, mergeTools } from "./extensions/load-runtime-resources.js";
import { createInputResolver } from "./extensions/resolve-input.js";
import { createBudgetQuestion } from "./governor/budget-question.js";
import { createGovernor } from "./governor/governor.js";
import { reloadSessionHooks, withPreToolUse, withPromptHooks } from "./hooks/create-session-hooks.js";
import type { RuntimeNotice } from "./inspect-project.js";
import { attachMcpTools, createMcpPromptExpander, withOptionalMentions } from "./mcp/start-mcp.js";
import { openSessionStore } from "./open-session.js";
import { isWithheldInPlanMode } from "./permissions/plan-mode.js";
import { reloadRuntime } from "./reload-runtime.js";
import { createExtraOps } from "./review/extra-ops.js";
import type { RuntimeConfig } from "./runtime-config.js";
import { readApiKeyFileOrExit, resolveSessionModel } from "./runtime-model.js";
import { createRuntimeSafety } from "./runtime-safety.js";
import type { Runtime, RuntimeBase, RuntimeIo } from "./runtime-types.js";
import { createHostAllowlist } from "./sandbox/host-allowlist.js";
import { selectToolNames, selectTools } from "./select-tools.js";
import { createRedactor, processSecretRegistry } from "./session/redact-secrets.js";
import type { SessionEvent } from "./session-events.js";
import { startRuntimeMcp } from "./start-runtime-mcp.js";
import { buildRuntimeSystemPrompt } from "./system-prompt/build-runtime-system-prompt.js";
import { withNestedContext } from "./system-prompt/nested-context-files.js";
import { type SessionTelemetry, startTelemetry } from "./telemetry/start-telemetry.js";
import { createBackgroundShells } from "./tools/index.js";
import { isHarnessToolName } from "./tools/tool-names.js";
import { createUserShell } from "./user-shell.js";

export type { RuntimeNotice } from "./inspect-project.js";
export { loadRuntimeBase } from "./load-runtime-base.js";
export type { Runtime, RuntimeBase, RuntimeIo } from "./runtime-types.js";

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
  const model = await resolveSessionModel({
    config,
    settings,
    home,
    env: io.env,
    models,
    ...(io.model ? { model: io.model } : {}),
    store: opened.store,
    last: restored.model,
  });
  // Tools added in code count as extension tools: their description stands in the prompt.
  const extensionTools = [...(extensions?.getTools() ?? []), ...(io.customTools ?? [])];
  const mcp = await startRuntimeMcp({
    config,
    settings,
    home,
    cwd: io.cwd,
    env: io.env,
    trusted: project.trusted,
    ...(io.ui ? { ui: io.ui } : {}),
    ...(io.streamFn ? { streamFn: io.streamFn } : {}),
    model,
    models,
    currentModel: () => session?.state.model ?? model.model,
  });
  const { hooks, hookWarnings, safety } = await createRuntimeSafety({
    config,
    base,
    cwd: io.cwd,
    env: io.env,
    ui: io.ui,
    session: () => ({
      id: session?.state.sessionId ?? opened.store.id,
      file: session?.state.sessionFile ?? opened.store.path,
    }),
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
    mcp.reportTo((text, level) => session.notice("mcp", text, level));
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
    ...mcp.notices,
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

/** SessionEnd's `reason`: a person leaving the TUI, or the run ending otherwise. */
function sessionEndReason(config: RuntimeConfig): string {
  return config.mode === "interactive" ? "prompt_input_exit" : "other";
}

function attachHarnessEvents(harness: HarnessTools, emit: (event: SessionEvent) => void): void {
  harness.todos.subscribe((todos) => emit({ type: "todo_update", todos: [...todos] }));
  harness.setSubagentListener((event) => emit({ type: "subagent_event", ...event }));
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

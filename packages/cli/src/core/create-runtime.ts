import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { AnyAgentTool } from "@gyre/agent";
import { GyreError, getProvider, type Model, type ThinkingLevel } from "@gyre/ai";
import { type CliArgs, parseArgs } from "../args.js";
import { AgentSession } from "./agent-session.js";
import { WorkspaceCheckpoints } from "./checkpoints/workspace-checkpoints.js";
import { loadModelsConfig } from "./config/models-config.js";
import { getGyreHome, getSessionsDir } from "./config/paths.js";
import { resolveModel } from "./config/resolve-model.js";
import { loadSettings, type Settings } from "./config/settings.js";
import type { ExtensionRunner } from "./extensions/extension-runner.js";
import { fingerprintExtensionFiles } from "./extensions/find-extension-files.js";
import {
  loadRuntimeResources,
  MissingExtensionError,
  mergeTools,
  type RuntimeResources,
} from "./extensions/load-runtime-resources.js";
import { createInputResolver } from "./extensions/resolve-input.js";
import { openSessionForArgs } from "./open-session.js";
import { pathExists } from "./path-exists.js";
import { addProcessSecret } from "./session/redact-secrets.js";
import type { SessionManager } from "./session/session-manager.js";
import { formatSkillsSection, type Skill } from "./skills/load-skills.js";
import { buildSystemPrompt } from "./system-prompt/build-system-prompt.js";
import { type ContextFile, loadContextFiles } from "./system-prompt/context-files.js";
import { createCodingTools } from "./tools/index.js";
import { decideProjectTrust } from "./trust.js";
import type { UserInterface } from "./user-interface.js";

/** A usage or configuration problem: one sentence for stderr, and the exit code. */
export class StartupError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
    this.name = "StartupError";
  }
}

export type Runtime = {
  /** The arguments with extension flags parsed (the prompt may differ from the first pass). */
  args: CliArgs;
  session: AgentSession;
  /** Snapshots before file-changing turns, and rewind (DESIGN §10). */
  checkpoints: WorkspaceCheckpoints;
  model: Model;
  cwd: string;
  gyreHome: string;
  settings: Settings;
  trusted: boolean;
  contextFiles: string[];
  warnings: string[];
  /** Problems the user must hear about even in quiet headless runs (damaged session lines). */
  problems: string[];
  /** Loaded extensions; undefined when none loaded. */
  extensions: ExtensionRunner | undefined;
  skills: RuntimeResources["skills"];
  templates: RuntimeResources["templates"];
};

export type RuntimeOptions = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /**
   * How core code asks the user: extensions' questions, and (in interactive mode) whether to
   * trust the project folder. Default: headless (every question declined).
   */
  ui?: UserInterface;
  /** The raw argv, parsed again once extensions registered their flags. */
  argv?: string[];
  /** Where extension failures are reported. Default: a line on stderr. */
  reportExtensionProblem?: (message: string) => void;
};

const defaultTools = ["read", "write", "edit", "bash"];

/**
 * Builds everything a mode needs from parsed arguments: settings, model and key, tools, system
 * prompt, session. Throws `StartupError` with a sentence that says what to do.
 */
export async function createRuntime(firstArgs: CliArgs, options: RuntimeOptions): Promise<Runtime> {
  let args = firstArgs;
  const { cwd, env } = options;
  const gyreHome = getGyreHome(env);
  if (
    await stat(gyreHome).then(
      (info) => !info.isDirectory(),
      () => false,
    )
  ) {
    throw new StartupError(
      `GYRE_HOME ${gyreHome} is not a directory; point GYRE_HOME at a directory (default ~/.gyre).`,
      2,
    );
  }
  const warnings: string[] = [];
  const contextFiles = await loadContextFiles({ cwd, gyreHome });
  const decision = await decideProjectTrust({
    gyreHome,
    cwd,
    fingerprint: await fingerprintExtensionFiles(join(cwd, ".gyre", "extensions")),
    trustFlag: args.trust,
    hasProjectConfig:
      (await pathExists(join(cwd, ".gyre"))) || contextFiles.some((file) => !file.path.startsWith(gyreHome)),
    ...(options.ui && args.mode === "interactive" ? { ui: options.ui } : {}),
  });
  const trusted = decision.trusted;
  if (decision.warning) warnings.push(decision.warning);
  const settings = await loadSettings({ gyreHome, cwd, includeProject: trusted }).then(
    (loaded) => loaded.settings,
    (error: Error) => {
      throw new StartupError(`Broken settings file ${error.message}`, 2);
    },
  );
  const timeout = Number(env.GYRE_EXTENSION_TIMEOUT_MS);
  const resources = await loadRuntimeResources({
    args,
    cwd,
    gyreHome,
    trusted,
    ...(options.ui ? { ui: options.ui } : {}),
    ...(Number.isFinite(timeout) && timeout > 0 ? { timeoutMs: timeout } : {}),
    ...(options.reportExtensionProblem ? { report: options.reportExtensionProblem } : {}),
  }).catch((error: Error) => {
    throw error instanceof MissingExtensionError ? new StartupError(error.message, 2) : error;
  });
  warnings.push(...resources.warnings);
  const extensions = resources.extensions;
  const flags = extensions?.getFlags() ?? new Map();
  if (options.argv && (args.unknownFlags.length > 0 || flags.size > 0)) {
    const types = Object.fromEntries([...flags].map(([name, flag]) => [name, flag.type]));
    const reparsed = parseArgs(options.argv, { extensionFlags: types });
    if (!reparsed.ok) throw new StartupError(reparsed.error, 2);
    args = { ...reparsed.value, mode: args.mode };
    extensions?.setFlagValues(args.extensionFlags);
  }
  const model = await resolveRuntimeModel(args, settings, gyreHome, env);
  const toolNames = args.noTools ? [] : (args.tools ?? settings.tools ?? defaultTools);
  const allTools = createCodingTools({
    cwd,
    allowedPaths: [...args.allowPaths, ...(settings.allowedPaths ?? []), ...resources.readablePaths],
    ...(settings.bashTimeoutMs ? { bash: { defaultTimeoutSeconds: settings.bashTimeoutMs / 1000 } } : {}),
  });
  const builtInTools = toolNames
    .map((name) => allTools.find((tool) => tool.name === name))
    .filter((tool): tool is AnyAgentTool => !!tool);
  const extensionTools = extensions?.getTools() ?? [];
  const tools = mergeTools(builtInTools, extensionTools);
  const usableContext = trusted ? contextFiles : contextFiles.filter((file) => file.path.startsWith(gyreHome));
  const systemPrompt = await buildRuntimeSystemPrompt({
    args,
    cwd,
    trusted,
    tools,
    extensionTools,
    contextFiles: usableContext,
    skills: resources.skills,
    extensions,
  });

  // The key may have come from a flag or a custom env var no redaction rule knows by name.
  addProcessSecret(model.apiKey);
  const problems: string[] = [];
  const store = await openSessionForArgs(args, {
    cwd,
    sessionsDir: getSessionsDir(gyreHome),
    onSkippedSession: (message) => problems.push(message),
  }).catch((error) => {
    // A session argument that names nothing usable is bad usage (exit 2), not a failed run.
    throw error instanceof GyreError && error.code === "usage" ? new StartupError(error.message, 2) : error;
  });
  if (store.problems.length > 0) {
    const shown = store.problems.slice(0, 3).map((problem) => `line ${problem.line}: ${problem.message}`);
    const more = store.problems.length > 3 ? `; and ${store.problems.length - 3} more` : "";
    problems.push(
      `Session ${store.path}: skipped ${store.problems.length} damaged line(s) (${shown.join("; ")}${more}); the rest was loaded and the file was not changed.`,
    );
  }
  const restored = store.buildContext();
  const thinkingLevel: ThinkingLevel = args.thinking ?? restored.thinkingLevel ?? settings.thinking ?? "off";
  const checkpoints: WorkspaceCheckpoints = new WorkspaceCheckpoints({
    gyreHome,
    workspace: cwd,
    store: (): SessionManager => session.session,
    onNotice: (text) => options.ui?.notify(text, "warning"),
  });
  const session = new AgentSession({
    beforeToolCall: checkpoints.turns.beforeToolCall,
    model: model.model,
    apiKey: model.apiKey,
    systemPrompt,
    thinkingLevel,
    tools,
    messages: restored.messages,
    store,
    budgets: {
      ...((args.maxTurns ?? settings.maxTurns) ? { maxTurns: args.maxTurns ?? settings.maxTurns } : {}),
      ...((args.maxCost ?? settings.maxCost) ? { maxCostUsd: args.maxCost ?? settings.maxCost } : {}),
      ...(settings.maxTotalTokens ? { maxTotalTokens: settings.maxTotalTokens } : {}),
      ...(settings.maxWallTimeMs ? { maxWallTimeMs: settings.maxWallTimeMs } : {}),
    },
    ...(settings.retry ? { retry: settings.retry } : {}),
    ...(settings.idleTimeoutMs ? { idleTimeoutMs: settings.idleTimeoutMs } : {}),
    ...(settings.compaction ? { compaction: settings.compaction } : {}),
    getApiKey: (provider) => {
      const envName = getProvider(provider)?.apiKeyEnv;
      return envName ? env[envName] : undefined;
    },
    ...(extensions ? { extensions } : {}),
    resolveInput: createInputResolver({
      ...(extensions ? { extensions } : {}),
      templates: resources.templates,
      skills: resources.skills,
    }),
  });
  checkpoints.attach(session);
  await extensions?.emit({
    type: "session_start",
    sessionId: session.sessionId,
    sessionFile: session.sessionFile,
    cwd,
  });
  return {
    args,
    session,
    checkpoints,
    model: model.model,
    cwd,
    gyreHome,
    settings,
    trusted,
    contextFiles: usableContext.map((file) => file.path),
    warnings: [...warnings, ...problems],
    problems,
    extensions,
    skills: resources.skills,
    templates: resources.templates,
  };
}

/**
 * The system prompt of a run: the tools (an extension tool by its description's first line), the
 * usable context files, skills (only with read), extension additions, and the project's
 * `.gyre/SYSTEM.md` and `APPEND_SYSTEM.md` when the project is trusted, under the flags' own.
 */
async function buildRuntimeSystemPrompt(options: {
  args: CliArgs;
  cwd: string;
  trusted: boolean;
  tools: AnyAgentTool[];
  extensionTools: AnyAgentTool[];
  contextFiles: ContextFile[];
  skills: Skill[];
  extensions: ExtensionRunner | undefined;
}): Promise<string> {
  const { args, cwd, trusted, tools, extensions } = options;
  const extensionToolNames = new Set(options.extensionTools.map((tool) => tool.name));
  const systemFile = trusted ? await readOptional(join(cwd, ".gyre", "SYSTEM.md")) : undefined;
  const appendFile = trusted ? await readOptional(join(cwd, ".gyre", "APPEND_SYSTEM.md")) : undefined;
  const customPrompt = args.systemPrompt ?? systemFile;
  return buildSystemPrompt({
    cwd,
    // Extension tools have no built-in line, so their own description's first line stands in.
    toolNames: tools.map((tool) =>
      extensionToolNames.has(tool.name) ? `${tool.name}: ${tool.description.split("\n")[0]}` : tool.name,
    ),
    contextFiles: options.contextFiles,
    extraSections: [
      tools.some((tool) => tool.name === "read") ? formatSkillsSection(options.skills) : "",
      ...(extensions?.getSystemPromptAdditions() ?? []),
    ],
    ...(customPrompt !== undefined ? { customPrompt } : {}),
    appendPrompts: [appendFile ?? "", args.appendSystemPrompt ?? ""],
  });
}

async function resolveRuntimeModel(args: CliArgs, settings: Settings, gyreHome: string, env: NodeJS.ProcessEnv) {
  const customProviders = await loadModelsConfig(gyreHome).catch((error: Error) => {
    throw new StartupError(`Broken models file ${error.message}`, 2);
  });
  const provider = args.provider ?? settings.defaultProvider;
  if (provider === "faux") return { model: await loadFauxModel(args), apiKey: undefined };
  const resolved = resolveModel({
    ...(args.provider ? { provider: args.provider } : {}),
    ...(args.model ? { model: args.model } : {}),
    ...(args.baseUrl ? { baseUrl: args.baseUrl } : {}),
    ...(args.apiKey ? { apiKey: args.apiKey } : {}),
    ...(settings.defaultProvider ? { defaultProvider: settings.defaultProvider } : {}),
    ...(settings.defaultModel ? { defaultModel: settings.defaultModel } : {}),
    customProviders,
    env,
  });
  if (!resolved.ok) throw new StartupError(resolved.error, 2);
  return resolved.value;
}

async function loadFauxModel(args: CliArgs): Promise<Model> {
  if (!args.fauxScript) {
    throw new StartupError("The faux provider needs a script; pass --faux-script <file.json>.", 2);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(args.fauxScript, "utf8"));
  } catch (error) {
    throw new StartupError(`Cannot read the faux script ${args.fauxScript}: ${(error as Error).message}`, 2);
  }
  const record = parsed as { responses?: unknown; tokenDelayMs?: number };
  const responses = Array.isArray(parsed) ? parsed : record.responses;
  if (!Array.isArray(responses)) {
    throw new StartupError(`The faux script ${args.fauxScript} must be a JSON array of responses.`, 2);
  }
  // The faux model lives in the testing entry; loaded only when asked for (start-up).
  const { createFauxModel } = await import("@gyre/ai/testing");
  return createFauxModel(responses, {
    ...(typeof record.tokenDelayMs === "number" ? { tokenDelayMs: record.tokenDelayMs } : {}),
    ...(args.model ? { modelId: args.model } : {}),
  }).model;
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

import { access, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { AnyAgentTool } from "@gyre/agent";
import { getProvider, type Model, type ThinkingLevel } from "@gyre/ai";
import type { CliArgs } from "../args.js";
import { AgentSession } from "./agent-session.js";
import { loadModelsConfig } from "./config/models-config.js";
import { getGyreHome, getSessionsDir } from "./config/paths.js";
import { resolveModel } from "./config/resolve-model.js";
import { loadSettings, type Settings } from "./config/settings.js";
import { openSessionForArgs } from "./open-session.js";
import { buildSystemPrompt } from "./system-prompt/build-system-prompt.js";
import { loadContextFiles } from "./system-prompt/context-files.js";
import { createCodingTools } from "./tools/index.js";
import { isProjectTrusted } from "./trust.js";

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
  session: AgentSession;
  model: Model;
  cwd: string;
  gyreHome: string;
  settings: Settings;
  trusted: boolean;
  contextFiles: string[];
  warnings: string[];
};

const defaultTools = ["read", "write", "edit", "bash"];

/**
 * Builds everything a mode needs from parsed arguments: settings, model and key, tools, system
 * prompt, session. Throws `StartupError` with a sentence that says what to do.
 */
export async function createRuntime(args: CliArgs, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Runtime> {
  const { cwd, env } = options;
  const gyreHome = getGyreHome(env);
  const warnings: string[] = [];
  const trusted = args.trust || (await isProjectTrusted({ gyreHome, cwd }));
  const settings = await loadSettings({ gyreHome, cwd, includeProject: trusted }).then(
    (loaded) => loaded.settings,
    (error: Error) => {
      throw new StartupError(`Broken settings file ${error.message}`, 2);
    },
  );
  if (!trusted && (await exists(join(cwd, ".gyre")))) {
    warnings.push(
      `This folder's .gyre/ settings, prompts and extensions were not loaded because it is not trusted; pass --trust to use them.`,
    );
  }
  const model = await resolveRuntimeModel(args, settings, gyreHome, env);
  const toolNames = args.noTools ? [] : (args.tools ?? settings.tools ?? defaultTools);
  const allTools = createCodingTools({
    cwd,
    allowedPaths: [...args.allowPaths, ...(settings.allowedPaths ?? [])],
    ...(settings.bashTimeoutMs ? { bash: { defaultTimeoutSeconds: settings.bashTimeoutMs / 1000 } } : {}),
  });
  const tools = toolNames
    .map((name) => allTools.find((tool) => tool.name === name))
    .filter((tool): tool is AnyAgentTool => !!tool);

  const contextFiles = await loadContextFiles({ cwd, gyreHome });
  const usableContext = trusted ? contextFiles : contextFiles.filter((file) => file.path.startsWith(gyreHome));
  const systemFile = trusted ? await readOptional(join(cwd, ".gyre", "SYSTEM.md")) : undefined;
  const appendFile = trusted ? await readOptional(join(cwd, ".gyre", "APPEND_SYSTEM.md")) : undefined;
  const customPrompt = args.systemPrompt ?? systemFile;
  const systemPrompt = buildSystemPrompt({
    cwd,
    toolNames: tools.map((tool) => tool.name),
    contextFiles: usableContext,
    ...(customPrompt !== undefined ? { customPrompt } : {}),
    appendPrompts: [appendFile ?? "", args.appendSystemPrompt ?? ""],
  });

  const store = await openSessionForArgs(args, { cwd, sessionsDir: getSessionsDir(gyreHome) });
  const restored = store.buildContext();
  const thinkingLevel: ThinkingLevel = args.thinking ?? restored.thinkingLevel ?? settings.thinking ?? "off";
  const session = new AgentSession({
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
    ...(settings.compaction ? { compaction: settings.compaction } : {}),
    getApiKey: (provider) => {
      const envName = getProvider(provider)?.apiKeyEnv;
      return envName ? env[envName] : undefined;
    },
  });
  return {
    session,
    model: model.model,
    cwd,
    gyreHome,
    settings,
    trusted,
    contextFiles: usableContext.map((file) => file.path),
    warnings,
  };
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

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

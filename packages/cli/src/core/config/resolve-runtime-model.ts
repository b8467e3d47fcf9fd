import { readFile } from "node:fs/promises";
import type { Model, ModelRegistry } from "@gyre/ai";
import { registerSignInProviders } from "../auth/sign-in-providers.js";
import { CliError } from "../errors.js";
import type { RuntimeConfig } from "../runtime-config.js";
import { loadModelsConfig } from "./models-config.js";
import { type ResolvedModel, resolveModel } from "./resolve-model.js";
import type { Settings } from "./settings.js";

/** The model and key of a run, with warnings about models.json (unknown keys) for the user. */
export type RuntimeModel = ResolvedModel & { warnings?: string[] };

/**
 * The model and key of a run: flags, then settings defaults, then the environment, with
 * models.json providers registered. Throws a `CliError` ("bad_usage", "config_invalid") with a
 * sentence saying what to set.
 */
export async function resolveRuntimeModel(options: {
  config: RuntimeConfig;
  settings: Settings;
  home: string;
  env: NodeJS.ProcessEnv;
  /** The runtime's registry: models.json providers are registered here only. */
  models: ModelRegistry;
}): Promise<RuntimeModel> {
  const { config, settings } = options;
  const { providers: customProviders, warnings } = await loadModelsConfig(options.home);
  const provider = config.provider ?? settings.defaultProvider;
  if (provider === "faux") return { model: await loadFauxModel(config), apiKey: undefined, warnings };
  // Plan sign-ins (gyre login): their providers, and which are signed in (docs/sign-in.md).
  const signedIn = await registerSignInProviders({ models: options.models, home: options.home, env: options.env });
  const resolved = resolveModel({
    signedIn,
    ...(config.provider ? { provider: config.provider } : {}),
    ...(config.model ? { model: config.model } : {}),
    ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    ...(settings.defaultProvider ? { defaultProvider: settings.defaultProvider } : {}),
    ...(settings.defaultModel ? { defaultModel: settings.defaultModel } : {}),
    customProviders,
    env: options.env,
    models: options.models,
  });
  if (!resolved.ok) throw new CliError("bad_usage", resolved.error);
  return { ...resolved.value, warnings };
}

async function loadFauxModel(config: RuntimeConfig): Promise<Model> {
  const file = config.fauxScript;
  if (!file) throw new CliError("bad_usage", "The faux provider needs a script; pass --faux-script <file.json>.");
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new CliError("config_invalid", `Cannot read the faux script ${file}: ${(error as Error).message}`);
  }
  const record = parsed as { responses?: unknown; tokenDelayMs?: number };
  const responses = Array.isArray(parsed) ? parsed : record.responses;
  if (!Array.isArray(responses))
    throw new CliError("config_invalid", `The faux script ${file} must be a JSON array of responses.`);
  // The faux model lives in the testing entry; loaded only when asked for (start-up).
  const { createFauxModel } = await import("@gyre/ai/testing");
  return createFauxModel(responses, {
    ...(typeof record.tokenDelayMs === "number" ? { tokenDelayMs: record.tokenDelayMs } : {}),
    ...(config.model ? { modelId: config.model } : {}),
  }).model;
}

// The model step of start-up (create-runtime.ts): which model and key the session runs on.
import type { Model, ModelRegistry } from "@gyre/ai";
import { readApiKeyFile } from "./config/api-key-file.js";
import { resolveApiKey } from "./config/resolve-api-key.js";
import { customBaseUrl } from "./config/resolve-model.js";
import { type RuntimeModel, resolveRuntimeModel } from "./config/resolve-runtime-model.js";
import type { Settings } from "./config/settings.js";
import { CliError } from "./errors.js";
import type { RuntimeConfig } from "./runtime-config.js";
import type { SessionContext, SessionManager } from "./session/session-manager.js";

/** What the model step reads: the flags and settings, and the session store it records the model in. */
export type SessionModelInput = {
  config: RuntimeConfig;
  settings: Settings;
  home: string;
  env: NodeJS.ProcessEnv;
  models: ModelRegistry;
  /** An embedder's own model object, used instead of resolving `config.provider`/`config.model`. */
  model?: Model;
  store: SessionManager;
  /** The model the opened session last recorded. */
  last: SessionContext["model"];
};

/**
 * The session's model and key: an embedder's model, else the flags', else (continuing a session
 * without --provider or --model) the one it last used, else settings'. Records it in the store
 * when it is not the one the store last recorded. Throws a `CliError` when none resolves.
 */
export async function resolveSessionModel(input: SessionModelInput): Promise<RuntimeModel> {
  const { config, env, models } = input;
  const model: RuntimeModel = input.model
    ? {
        model: input.model,
        apiKey: resolveApiKey({
          provider: input.model.provider,
          ...(config.apiKey ? { explicit: config.apiKey } : {}),
          env,
          models,
        }),
      }
    : await resolveRuntimeModel({
        config: withSessionModel(config, input.last),
        settings: input.settings,
        home: input.home,
        env,
        models,
      });
  recordModel(input.store, model.model, input.last, models);
  return model;
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

/** The key in `--api-key-file`; an unreadable or empty file is bad usage. */
export async function readApiKeyFileOrExit(path: string): Promise<string> {
  return readApiKeyFile(path).catch((error: Error) => {
    throw new CliError("bad_usage", error.message, { cause: error });
  });
}

import { defaultModelRegistry, type Model, type ModelRegistry } from "@gyre/ai";
import type { CustomProvider } from "./models-config.js";
import { resolveApiKey } from "./resolve-api-key.js";

export type ModelRequest = {
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  defaultProvider?: string;
  defaultModel?: string;
  customProviders: CustomProvider[];
  env: NodeJS.ProcessEnv;
  /** Where the custom providers are registered and models looked up (default: the process-wide one). */
  models?: ModelRegistry;
  /** Providers with a stored plan sign-in (`gyre login`), used when no key is set. */
  signedIn?: readonly string[];
};

export type ResolvedModel = { model: Model; apiKey: string | undefined };
export type ResolveResult = { ok: true; value: ResolvedModel } | { ok: false; error: string };

const defaultModels: Record<string, string> = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-5",
  "openai-responses": "gpt-5",
  google: "gemini-2.5-pro",
  faux: "faux-1",
  "github-copilot": "gpt-4.1",
  "openai-codex": "gpt-5.1-codex",
};

const SIGN_IN_PROVIDERS = new Set(["github-copilot", "openai-codex"]);

const baseUrlEnv: Record<string, string> = {
  openai: "OPENAI_BASE_URL",
  "openai-responses": "OPENAI_BASE_URL",
  anthropic: "ANTHROPIC_BASE_URL",
};

/** Whether a URL points at this machine (local servers need no key). */
export function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === "localhost" || host === "::1" || host === "[::1]" || host.startsWith("127.");
  } catch {
    return false;
  }
}

/**
 * Picks provider, model, base URL and key from flags, settings, env and models.json.
 * Order: flags, then settings defaults, then the first provider whose key env var is set. The
 * model: the flag, the settings default, the provider's default, else the provider's first model.
 * Errors are one sentence that says what to do (and name the env var for a missing key).
 */
export function resolveModel(request: ModelRequest): ResolveResult {
  const registry = request.models ?? defaultModelRegistry;
  for (const custom of request.customProviders) registry.registerProvider(custom.info, custom.models);
  const providerName =
    request.provider ?? request.defaultProvider ?? inferProvider(request.env) ?? request.signedIn?.[0];
  if (!providerName) {
    return {
      ok: false,
      error:
        "No model provider is configured; set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, pass --provider (and --model), or sign in with a plan: gyre login github-copilot or gyre login openai-codex.",
    };
  }
  if (SIGN_IN_PROVIDERS.has(providerName) && request.signedIn && !request.signedIn.includes(providerName))
    return { ok: false, error: `Not signed in to ${providerName}; run gyre login ${providerName} first.` };
  const info = registry.getProvider(providerName);
  if (!info) {
    const names = registry.getProviders().map((provider) => provider.name);
    return {
      ok: false,
      error: `Unknown provider "${providerName}"; use one of ${names.join(", ")} or define it in models.json.`,
    };
  }
  const modelId =
    request.model ??
    (request.defaultProvider === providerName || !request.provider ? request.defaultModel : undefined) ??
    defaultModels[providerName] ??
    // A provider of models.json names no default: its first listed model is the natural one.
    registry.getModels(providerName)[0]?.id;
  if (!modelId)
    return { ok: false, error: `Provider "${providerName}" has no default model and lists none; pass --model <id>.` };
  const base = registry.getModel(providerName, modelId);
  const envName = baseUrlEnv[providerName];
  const baseUrl = request.baseUrl ?? (envName ? request.env[envName] : undefined);
  const model: Model = baseUrl ? { ...base, baseUrl: baseUrl.replace(/\/+$/, "") } : base;
  const apiKey = resolveApiKey({
    provider: providerName,
    env: request.env,
    models: registry,
    ...(request.apiKey ? { explicit: request.apiKey } : {}),
  });
  if (!apiKey && info.apiKeyEnv && !isLoopbackUrl(model.baseUrl)) {
    return {
      ok: false,
      error: `No API key for ${providerName}; set ${info.apiKeyEnv} or pass --api-key.`,
    };
  }
  return { ok: true, value: { model, apiKey } };
}

function inferProvider(env: NodeJS.ProcessEnv): string | undefined {
  if (env.ANTHROPIC_API_KEY) return "anthropic";
  if (env.OPENAI_API_KEY) return "openai";
  if (env.GEMINI_API_KEY) return "google";
  return undefined;
}

/** The model's base URL when it is not its provider's own (a local server, --base-url); else undefined. */
export function customBaseUrl(model: Model, models: ModelRegistry = defaultModelRegistry): string | undefined {
  const own = models.getProvider(model.provider)?.baseUrl;
  return model.baseUrl && model.baseUrl !== own ? model.baseUrl : undefined;
}

import { processSlot } from "./process-state.js";
import type { Api, Model, ModelCompat, ModelCost } from "./types.js";

/** A provider's connection data: which wire API, where, and which env var holds its key. */
export type ProviderInfo = {
  name: string;
  api: Api;
  baseUrl: string;
  /** Env var holding the API key; absent when no key is needed (local servers, faux). */
  apiKeyEnv?: string;
  headers?: Record<string, string>;
  compat?: ModelCompat;
};

type ModelSpec = {
  id: string;
  name: string;
  reasoning: boolean;
  image: boolean;
  contextWindow: number;
  maxTokens: number;
  /** input, output, cacheRead, cacheWrite per million tokens, USD. */
  price: [number, number, number, number];
};

const builtInProviders: ProviderInfo[] = [
  { name: "openai", api: "openai-completions", baseUrl: "https://api.openai.com/v1", apiKeyEnv: "OPENAI_API_KEY" },
  {
    name: "openai-responses",
    api: "openai-responses",
    baseUrl: "https://api.openai.com/v1",
    apiKeyEnv: "OPENAI_API_KEY",
  },
  {
    name: "anthropic",
    api: "anthropic-messages",
    baseUrl: "https://api.anthropic.com",
    apiKeyEnv: "ANTHROPIC_API_KEY",
  },
  {
    name: "google",
    api: "google-gemini",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta",
    apiKeyEnv: "GEMINI_API_KEY",
  },
  { name: "ollama", api: "openai-completions", baseUrl: "http://127.0.0.1:11434/v1" },
  { name: "llamacpp", api: "openai-completions", baseUrl: "http://127.0.0.1:8080/v1" },
  { name: "faux", api: "faux", baseUrl: "faux://local" },
];

const openAiModels: ModelSpec[] = [
  {
    id: "gpt-5",
    name: "GPT-5",
    reasoning: true,
    image: true,
    contextWindow: 400_000,
    maxTokens: 128_000,
    price: [1.25, 10, 0.125, 0],
  },
  {
    id: "gpt-5-mini",
    name: "GPT-5 mini",
    reasoning: true,
    image: true,
    contextWindow: 400_000,
    maxTokens: 128_000,
    price: [0.25, 2, 0.025, 0],
  },
  {
    id: "gpt-5-nano",
    name: "GPT-5 nano",
    reasoning: true,
    image: true,
    contextWindow: 400_000,
    maxTokens: 128_000,
    price: [0.05, 0.4, 0.005, 0],
  },
  {
    id: "gpt-4.1",
    name: "GPT-4.1",
    reasoning: false,
    image: true,
    contextWindow: 1_047_576,
    maxTokens: 32_768,
    price: [2, 8, 0.5, 0],
  },
  {
    id: "gpt-4.1-mini",
    name: "GPT-4.1 mini",
    reasoning: false,
    image: true,
    contextWindow: 1_047_576,
    maxTokens: 32_768,
    price: [0.4, 1.6, 0.1, 0],
  },
  {
    id: "gpt-4o",
    name: "GPT-4o",
    reasoning: false,
    image: true,
    contextWindow: 128_000,
    maxTokens: 16_384,
    price: [2.5, 10, 1.25, 0],
  },
  {
    id: "gpt-4o-mini",
    name: "GPT-4o mini",
    reasoning: false,
    image: true,
    contextWindow: 128_000,
    maxTokens: 16_384,
    price: [0.15, 0.6, 0.075, 0],
  },
  {
    id: "o3",
    name: "o3",
    reasoning: true,
    image: true,
    contextWindow: 200_000,
    maxTokens: 100_000,
    price: [2, 8, 0.5, 0],
  },
  {
    id: "o4-mini",
    name: "o4-mini",
    reasoning: true,
    image: true,
    contextWindow: 200_000,
    maxTokens: 100_000,
    price: [1.1, 4.4, 0.275, 0],
  },
];

const anthropicModels: ModelSpec[] = [
  {
    id: "claude-opus-4-1",
    name: "Claude Opus 4.1",
    reasoning: true,
    image: true,
    contextWindow: 200_000,
    maxTokens: 32_000,
    price: [15, 75, 1.5, 18.75],
  },
  {
    id: "claude-sonnet-4-5",
    name: "Claude Sonnet 4.5",
    reasoning: true,
    image: true,
    contextWindow: 200_000,
    maxTokens: 64_000,
    price: [3, 15, 0.3, 3.75],
  },
  {
    id: "claude-sonnet-4-0",
    name: "Claude Sonnet 4",
    reasoning: true,
    image: true,
    contextWindow: 200_000,
    maxTokens: 64_000,
    price: [3, 15, 0.3, 3.75],
  },
  {
    id: "claude-haiku-4-5",
    name: "Claude Haiku 4.5",
    reasoning: true,
    image: true,
    contextWindow: 200_000,
    maxTokens: 64_000,
    price: [1, 5, 0.1, 1.25],
  },
  {
    id: "claude-3-5-haiku-latest",
    name: "Claude Haiku 3.5",
    reasoning: false,
    image: true,
    contextWindow: 200_000,
    maxTokens: 8_192,
    price: [0.8, 4, 0.08, 1],
  },
];

const googleModels: ModelSpec[] = [
  {
    id: "gemini-2.5-pro",
    name: "Gemini 2.5 Pro",
    reasoning: true,
    image: true,
    contextWindow: 1_048_576,
    maxTokens: 65_536,
    price: [1.25, 10, 0.31, 0],
  },
  {
    id: "gemini-2.5-flash",
    name: "Gemini 2.5 Flash",
    reasoning: true,
    image: true,
    contextWindow: 1_048_576,
    maxTokens: 65_536,
    price: [0.3, 2.5, 0.075, 0],
  },
  {
    id: "gemini-2.5-flash-lite",
    name: "Gemini 2.5 Flash-Lite",
    reasoning: true,
    image: true,
    contextWindow: 1_048_576,
    maxTokens: 65_536,
    price: [0.1, 0.4, 0.025, 0],
  },
  {
    id: "gemini-3-pro-preview",
    name: "Gemini 3 Pro (preview)",
    reasoning: true,
    image: true,
    contextWindow: 1_048_576,
    maxTokens: 65_536,
    price: [2, 12, 0.2, 0],
  },
];

const fauxModels: ModelSpec[] = [
  {
    id: "faux-1",
    name: "Faux scripted model",
    reasoning: true,
    image: true,
    contextWindow: 128_000,
    maxTokens: 16_384,
    price: [0, 0, 0, 0],
  },
];

const specsByProvider: Record<string, ModelSpec[]> = {
  openai: openAiModels,
  "openai-responses": openAiModels,
  anthropic: anthropicModels,
  google: googleModels,
  faux: fauxModels,
};

/**
 * Providers and their models. Each registry is independent: a provider registered in one (a
 * models.json of one session) is invisible to another. `createModelRegistry()` starts with the
 * built-in providers; the module-level functions below use `defaultModelRegistry`.
 */
export type ModelRegistry = {
  /** Adds or replaces a provider and its models (custom providers from data, e.g. models.json). */
  registerProvider(provider: ProviderInfo, providerModels?: Model[]): void;
  /** Known providers, built-in first, in registration order. */
  getProviders(): ProviderInfo[];
  getProvider(name: string): ProviderInfo | undefined;
  /** Known models of a provider (empty for an unknown provider). */
  getModels(provider: string): Model[];
  /** A registered model, or undefined. */
  findModel(provider: string, id: string): Model | undefined;
  /**
   * The model `id` of `provider`: the registered one, or — for an id the registry does not know —
   * a model with default limits and zero cost on that provider's API and base URL.
   * Throws when the provider itself is unknown (a usage error the caller reports).
   */
  getModel(provider: string, id: string): Model;
};

export const defaultModelLimits = { contextWindow: 128_000, maxTokens: 16_384 } as const;
const zeroCost: ModelCost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

/** A registry holding the built-in providers and models only. */
export function createModelRegistry(): ModelRegistry {
  const models = new Map<string, Map<string, Model>>();
  const providers = new Map<string, ProviderInfo>();
  const registry: ModelRegistry = {
    registerProvider(provider, providerModels = []) {
      providers.set(provider.name, provider);
      const byId = models.get(provider.name) ?? new Map<string, Model>();
      for (const model of providerModels) byId.set(model.id, model);
      models.set(provider.name, byId);
    },
    getProviders: () => [...providers.values()],
    getProvider: (name) => providers.get(name),
    getModels: (provider) => [...(models.get(provider)?.values() ?? [])],
    findModel: (provider, id) => models.get(provider)?.get(id),
    getModel(provider, id) {
      const known = models.get(provider)?.get(id);
      if (known) return known;
      const info = providers.get(provider);
      if (!info) {
        throw new Error(
          `Unknown provider "${provider}"; use one of ${[...providers.keys()].join(", ")} or define it in models.json.`,
        );
      }
      return unlistedModel(info, id);
    },
  };
  for (const provider of builtInProviders) {
    const specs = specsByProvider[provider.name] ?? [];
    registry.registerProvider(
      provider,
      specs.map((spec) => toModel(provider, spec)),
    );
  }
  return registry;
}

function toModel(provider: ProviderInfo, spec: ModelSpec): Model {
  const [input, output, cacheRead, cacheWrite] = spec.price;
  return {
    id: spec.id,
    name: spec.name,
    api: provider.api,
    provider: provider.name,
    baseUrl: provider.baseUrl,
    reasoning: spec.reasoning,
    input: spec.image ? ["text", "image"] : ["text"],
    contextWindow: spec.contextWindow,
    maxTokens: spec.maxTokens,
    cost: { input, output, cacheRead, cacheWrite },
    ...(provider.headers ? { headers: provider.headers } : {}),
    ...(provider.compat ? { compat: provider.compat } : {}),
  };
}

/** An id the registry does not list: default limits and zero cost on the provider's endpoint. */
function unlistedModel(info: ProviderInfo, id: string): Model {
  return {
    id,
    name: id,
    api: info.api,
    provider: info.name,
    baseUrl: info.baseUrl,
    reasoning: false,
    input: ["text", "image"],
    contextWindow: defaultModelLimits.contextWindow,
    maxTokens: defaultModelLimits.maxTokens,
    cost: { ...zeroCost },
    ...(info.headers ? { headers: info.headers } : {}),
    ...(info.compat ? { compat: info.compat } : {}),
  };
}

/**
 * The process-wide registry the module-level functions use (kept for existing callers): one per
 * process, shared by every copy of @gyre/ai, so a provider registered through `@gyre/ai` is known
 * inside `gyre`'s bundled copy.
 */
export const defaultModelRegistry: ModelRegistry = processSlot("models", createModelRegistry);

/** `defaultModelRegistry.registerProvider`. */
export function registerProvider(provider: ProviderInfo, providerModels: Model[] = []): void {
  defaultModelRegistry.registerProvider(provider, providerModels);
}

/** `defaultModelRegistry.getProviders`. */
export function getProviders(): ProviderInfo[] {
  return defaultModelRegistry.getProviders();
}

/** `defaultModelRegistry.getProvider`. */
export function getProvider(name: string): ProviderInfo | undefined {
  return defaultModelRegistry.getProvider(name);
}

/** `defaultModelRegistry.getModels`. */
export function getModels(provider: string): Model[] {
  return defaultModelRegistry.getModels(provider);
}

/** `defaultModelRegistry.findModel`. */
export function findModel(provider: string, id: string): Model | undefined {
  return defaultModelRegistry.findModel(provider, id);
}

/** `defaultModelRegistry.getModel`. */
export function getModel(provider: string, id: string): Model {
  return defaultModelRegistry.getModel(provider, id);
}

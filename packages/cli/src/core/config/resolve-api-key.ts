import { defaultModelRegistry, type ModelRegistry } from "@gyre/ai";

/**
 * The API key the CLI uses for `provider`: the explicit one (`--api-key`, an RPC client's)
 * when given and non-empty, else the provider's key variable in `env` (`ANTHROPIC_API_KEY`, …,
 * or the `apiKeyEnv` a models.json provider names). Undefined when neither is set. The one place
 * the CLI reads keys; providers only ever see the result as `options.apiKey`. Providers are
 * looked up in `models` (default: the process-wide registry).
 */
export function resolveApiKey(options: {
  provider: string;
  explicit?: string;
  env: NodeJS.ProcessEnv;
  models?: ModelRegistry;
}): string | undefined {
  if (options.explicit) return options.explicit;
  const envName = (options.models ?? defaultModelRegistry).getProvider(options.provider)?.apiKeyEnv;
  return (envName ? options.env[envName] : undefined) || undefined;
}

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Model, ModelCompat, ProviderInfo } from "@gyre/ai";
import { defaultModelLimits } from "@gyre/ai";
import { CliError } from "../errors.js";

/** A custom provider from `$GYRE_HOME/models.json`. */
export type CustomProvider = { info: ProviderInfo; models: Model[] };

const knownApis = ["openai-completions", "openai-responses", "anthropic-messages", "google-gemini"];

/**
 * Reads `$GYRE_HOME/models.json`:
 * `{ "providers": { "<name>": { "api", "baseUrl", "apiKeyEnv"?, "headers"?, "compat"?, "models": [{ "id", "name"?,
 * "contextWindow"?, "maxTokens"?, "reasoning"?, "input"?, "cost"? }] } } }`.
 * A missing file yields no providers; a broken one throws a `CliError` ("config_invalid") naming the file and the problem.
 */
export async function loadModelsConfig(gyreHome: string): Promise<CustomProvider[]> {
  const file = join(gyreHome, "models.json");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw modelsError(file, `cannot be read (${(error as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw modelsError(file, `is not valid JSON (${(error as Error).message}); fix or delete it.`);
  }
  const providers = (parsed as { providers?: unknown })?.providers;
  if (!providers || typeof providers !== "object" || Array.isArray(providers)) {
    throw modelsError(file, `must contain {"providers": {"<name>": {...}}}.`);
  }
  return Object.entries(providers as Record<string, unknown>).map(([name, value]) => toProvider(file, name, value));
}

function toProvider(file: string, name: string, value: unknown): CustomProvider {
  const fail = (problem: string): never => {
    throw modelsError(file, `provider "${name}" ${problem}`);
  };
  if (!value || typeof value !== "object") fail("must be an object.");
  const raw = value as Record<string, unknown>;
  if (typeof raw.api !== "string" || !knownApis.includes(raw.api)) fail(`needs "api": one of ${knownApis.join(", ")}.`);
  if (typeof raw.baseUrl !== "string" || !/^https?:\/\//.test(raw.baseUrl)) fail('needs "baseUrl": an http(s) URL.');
  if (raw.apiKeyEnv !== undefined && typeof raw.apiKeyEnv !== "string") fail('"apiKeyEnv" must be an env var name.');
  const info: ProviderInfo = {
    name,
    api: raw.api as string,
    baseUrl: (raw.baseUrl as string).replace(/\/+$/, ""),
    ...(typeof raw.apiKeyEnv === "string" ? { apiKeyEnv: raw.apiKeyEnv } : {}),
    ...(raw.headers && typeof raw.headers === "object" ? { headers: raw.headers as Record<string, string> } : {}),
    ...(raw.compat && typeof raw.compat === "object" ? { compat: raw.compat as ModelCompat } : {}),
  };
  const models = Array.isArray(raw.models) ? raw.models : [];
  return {
    info,
    models: models.map((entry, index) => {
      const model = entry as Record<string, unknown>;
      if (typeof model?.id !== "string") fail(`model #${index + 1} needs an "id".`);
      const cost = (model.cost ?? {}) as Record<string, number>;
      return {
        id: model.id as string,
        name: typeof model.name === "string" ? model.name : (model.id as string),
        api: info.api,
        provider: name,
        baseUrl: info.baseUrl,
        reasoning: model.reasoning === true,
        input: Array.isArray(model.input) ? (model.input as ("text" | "image")[]) : ["text"],
        contextWindow: typeof model.contextWindow === "number" ? model.contextWindow : defaultModelLimits.contextWindow,
        maxTokens: typeof model.maxTokens === "number" ? model.maxTokens : defaultModelLimits.maxTokens,
        cost: {
          input: cost.input ?? 0,
          output: cost.output ?? 0,
          cacheRead: cost.cacheRead ?? 0,
          cacheWrite: cost.cacheWrite ?? 0,
        },
        ...(info.headers ? { headers: info.headers } : {}),
        ...(info.compat ? { compat: info.compat } : {}),
      } satisfies Model;
    }),
  };
}

function modelsError(file: string, problem: string): CliError {
  return new CliError("config_invalid", `Broken models file ${file}: ${problem}`);
}

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Model, ProviderInfo } from "@gyre/ai";
import { defaultModelLimits } from "@gyre/ai";
import { type Static, Type } from "@sinclair/typebox";
import { CliError } from "../errors.js";
import { checkSchema, describeFileProblems } from "./schema-check.js";

/** A custom provider from `$GYRE_HOME/models.json`. */
export type CustomProvider = { info: ProviderInfo; models: Model[] };

/** What models.json gave: its providers, and warnings (unknown keys) to show the user. */
export type ModelsConfig = { providers: CustomProvider[]; warnings: string[] };

const knownApis = ["openai-completions", "openai-responses", "anthropic-messages", "google-gemini"] as const;
const positiveWhole = () => Type.Optional(Type.Integer({ exclusiveMinimum: 0 }));
const price = () => Type.Optional(Type.Number({ minimum: 0 }));

const compatSchema = Type.Object({
  maxTokensField: Type.Optional(Type.Union([Type.Literal("max_tokens"), Type.Literal("max_completion_tokens")])),
  supportsUsageInStreaming: Type.Optional(Type.Boolean()),
  supportsDeveloperRole: Type.Optional(Type.Boolean()),
  supportsReasoningEffort: Type.Optional(Type.Boolean()),
  supportsStrictTools: Type.Optional(Type.Boolean()),
  toolCallIdFormat: Type.Optional(Type.Union([Type.Literal("any"), Type.Literal("alphanumeric9")])),
});

const modelSchema = Type.Object({
  id: Type.String({ minLength: 1, expected: "a model id (a non-empty string)" }),
  name: Type.Optional(Type.String()),
  contextWindow: positiveWhole(),
  maxTokens: positiveWhole(),
  reasoning: Type.Optional(Type.Boolean()),
  input: Type.Optional(Type.Array(Type.Union([Type.Literal("text"), Type.Literal("image")]))),
  cost: Type.Optional(Type.Object({ input: price(), output: price(), cacheRead: price(), cacheWrite: price() })),
});

const providerSchema = Type.Object({
  api: Type.Union(knownApis.map((api) => Type.Literal(api))),
  baseUrl: Type.String({ pattern: "^https?://", expected: "an http(s) URL" }),
  apiKeyEnv: Type.Optional(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$", expected: "an env var name" })),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  compat: Type.Optional(compatSchema),
  models: Type.Optional(Type.Array(modelSchema)),
});

/**
 * `$GYRE_HOME/models.json`: `{ "providers": { "<name>": { "api", "baseUrl", "apiKeyEnv"?, "headers"?,
 * "compat"?, "models": [{ "id", "name"?, "contextWindow"?, "maxTokens"?, "reasoning"?, "input"?, "cost"? }] } } }`.
 */
export const modelsFileSchema = Type.Object({
  providers: Type.Record(Type.String(), providerSchema, { expected: 'an object {"<name>": {"api", "baseUrl", ...}}' }),
});

type ProviderEntry = Static<typeof providerSchema>;

/**
 * Reads `$GYRE_HOME/models.json` against `modelsFileSchema`. A missing file yields no providers; a
 * broken one throws a `CliError` ("config_invalid") naming the file and every problem; unknown
 * keys are named in `warnings`.
 */
export async function loadModelsConfig(gyreHome: string): Promise<ModelsConfig> {
  const file = join(gyreHome, "models.json");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { providers: [], warnings: [] };
    throw modelsError(file, [`cannot be read (${(error as Error).message})`]);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw modelsError(file, [`is not valid JSON (${(error as Error).message}); fix or delete it.`]);
  }
  const report = await checkSchema(modelsFileSchema, parsed);
  if (report.problems.length > 0) throw modelsError(file, report.problems);
  const { providers } = parsed as Static<typeof modelsFileSchema>;
  return {
    providers: Object.entries(providers).map(([name, entry]) => toProvider(name, entry)),
    warnings: report.unknownKeys.map((key) => `${file}: ${key} is not a models.json field gyre knows; it is ignored.`),
  };
}

function toProvider(name: string, raw: ProviderEntry): CustomProvider {
  const info: ProviderInfo = {
    name,
    api: raw.api,
    baseUrl: raw.baseUrl.replace(/\/+$/, ""),
    ...(raw.apiKeyEnv !== undefined ? { apiKeyEnv: raw.apiKeyEnv } : {}),
    ...(raw.headers ? { headers: raw.headers } : {}),
    ...(raw.compat ? { compat: raw.compat } : {}),
  };
  const models = (raw.models ?? []).map(
    (model): Model => ({
      id: model.id,
      name: model.name ?? model.id,
      api: info.api,
      provider: name,
      baseUrl: info.baseUrl,
      reasoning: model.reasoning === true,
      input: model.input ?? ["text"],
      contextWindow: model.contextWindow ?? defaultModelLimits.contextWindow,
      maxTokens: model.maxTokens ?? defaultModelLimits.maxTokens,
      cost: {
        input: model.cost?.input ?? 0,
        output: model.cost?.output ?? 0,
        cacheRead: model.cost?.cacheRead ?? 0,
        cacheWrite: model.cost?.cacheWrite ?? 0,
      },
      ...(info.headers ? { headers: info.headers } : {}),
      ...(info.compat ? { compat: info.compat } : {}),
    }),
  );
  return { info, models };
}

function modelsError(file: string, problems: readonly string[]): CliError {
  return new CliError("config_invalid", describeFileProblems("Broken models file", file, problems));
}

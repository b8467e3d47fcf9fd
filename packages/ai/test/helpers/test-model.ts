import type { Model } from "../../src/types.js";
import type { WireApi } from "./local-server.js";

/** A model served by a local OpenAI-style server: no reasoning, free. */
const localModel = {
  id: "test-model",
  name: "test",
  provider: "local",
  reasoning: false,
  input: ["text", "image"],
  contextWindow: 128_000,
  maxTokens: 16_384,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
} satisfies Omit<Model, "api" | "baseUrl">;

/** One model record per API, as the provider tests expect them (ids, limits, prices). */
const testModels: Record<WireApi, Omit<Model, "baseUrl">> = {
  "anthropic-messages": {
    id: "claude-sonnet-4-5",
    name: "Claude Sonnet 4.5",
    api: "anthropic-messages",
    provider: "anthropic",
    reasoning: true,
    input: ["text", "image"],
    contextWindow: 200_000,
    maxTokens: 8192,
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  },
  "google-gemini": {
    id: "gemini-2.5-flash",
    name: "Gemini 2.5 Flash",
    api: "google-gemini",
    provider: "google",
    reasoning: true,
    input: ["text", "image"],
    contextWindow: 1_048_576,
    maxTokens: 65_536,
    cost: { input: 0.3, output: 2.5, cacheRead: 0.075, cacheWrite: 0 },
  },
  "openai-completions": { ...localModel, api: "openai-completions" },
  "openai-responses": { ...localModel, api: "openai-responses" },
};

/** A fresh test model for `api` that sends to `baseUrl`; `overrides` replace single fields. */
export function createTestModel(api: WireApi, baseUrl: string, overrides: Partial<Model> = {}): Model {
  return { ...testModels[api], baseUrl, ...overrides };
}

import type { Context, Model, StreamOptions, ThinkingLevel } from "../../types.js";
import { convertGeminiContents, convertGeminiTools } from "./convert-messages.js";
import type { GeminiRequest, GeminiThinkingConfig } from "./wire.js";

/** Thinking budgets in tokens per level (Gemini 2.5 Flash accepts up to 24576). */
export const geminiThinkingBudgets: Record<Exclude<ThinkingLevel, "off">, number> = {
  low: 1024,
  medium: 8192,
  high: 24_576,
};

/**
 * Builds the `streamGenerateContent` request body. `webSearch` adds the `googleSearch` tool. Reasoning models get thought summaries
 * (`includeThoughts`) unless thinking is `off`; `off` asks for a zero budget, except on Pro
 * models, which cannot stop thinking and get their minimum (128) instead.
 */
export function buildGeminiRequest(model: Model, context: Context, options: StreamOptions): GeminiRequest {
  const request: GeminiRequest = { contents: convertGeminiContents(context, model) };
  if (context.systemPrompt) request.systemInstruction = { parts: [{ text: context.systemPrompt }] };
  const tools = convertGeminiTools(context);
  if (tools) request.tools = tools;
  // Google Search grounding is a tool of its own; results come back as `groundingMetadata`.
  if (options.webSearch) request.tools = [...(request.tools ?? []), { googleSearch: {} }];
  const generationConfig: NonNullable<GeminiRequest["generationConfig"]> = {
    maxOutputTokens: options.maxTokens ?? model.maxTokens,
  };
  if (options.temperature !== undefined) generationConfig.temperature = options.temperature;
  const thinkingConfig = createThinkingConfig(model, options.thinking);
  if (thinkingConfig) generationConfig.thinkingConfig = thinkingConfig;
  request.generationConfig = generationConfig;
  return request;
}

function createThinkingConfig(model: Model, level: ThinkingLevel | undefined): GeminiThinkingConfig | undefined {
  if (!model.reasoning) return undefined;
  if (level === undefined) return { includeThoughts: true };
  if (level === "off") return { thinkingBudget: /pro/i.test(model.id) ? 128 : 0 };
  return { includeThoughts: true, thinkingBudget: geminiThinkingBudgets[level] };
}

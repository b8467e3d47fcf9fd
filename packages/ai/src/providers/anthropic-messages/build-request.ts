import type { Context, Model, StreamOptions, ThinkingLevel, WebSearchOptions } from "../../types.js";
import { convertAnthropicMessages, convertAnthropicTools } from "./convert-messages.js";
import type { AnthropicRequest, AnthropicWebSearchTool } from "./wire.js";

/** Extended-thinking budgets in tokens per level (Anthropic's minimum is 1024). */
export const anthropicThinkingBudgets: Record<Exclude<ThinkingLevel, "off">, number> = {
  low: 2048,
  medium: 8192,
  high: 16_384,
};

/**
 * Builds the `/v1/messages` request body; `webSearch` adds the `web_search_20250305` server tool. `max_tokens` is required by the API: options first,
 * then the model's limit. Thinking is enabled only for reasoning models when a level other than
 * `off` is asked for; then `temperature` is omitted (the API rejects it with thinking), and
 * `max_tokens` is raised (within the model's limit) so the budget leaves room for the answer.
 */
export function buildAnthropicRequest(model: Model, context: Context, options: StreamOptions): AnthropicRequest {
  let maxTokens = options.maxTokens ?? model.maxTokens;
  const request: AnthropicRequest = {
    model: model.id,
    max_tokens: maxTokens,
    messages: convertAnthropicMessages(context, model),
    stream: true,
  };
  if (context.systemPrompt) {
    request.system = [{ type: "text", text: context.systemPrompt, cache_control: { type: "ephemeral" } }];
  }
  const tools = convertAnthropicTools(context);
  if (tools) request.tools = tools;
  if (options.webSearch) request.tools = [...(request.tools ?? []), createWebSearchTool(options.webSearch)];
  const level = options.thinking;
  if (model.reasoning && level && level !== "off") {
    let budget = anthropicThinkingBudgets[level];
    // Raise max_tokens so the budget leaves room for the answer, within the model's output limit;
    // where that limit is too small, shrink the budget instead (never below the API's 1024).
    if (maxTokens <= budget)
      maxTokens = Math.max(maxTokens, Math.min(model.maxTokens, budget + Math.max(1024, maxTokens)));
    if (maxTokens <= budget) budget = Math.max(1024, maxTokens - 1024);
    request.max_tokens = maxTokens;
    request.thinking = { type: "enabled", budget_tokens: budget };
  } else if (options.temperature !== undefined) {
    request.temperature = options.temperature;
  }
  return request;
}

/** Anthropic's server-side web search tool, with the caller's limits. */
function createWebSearchTool(options: true | WebSearchOptions): AnthropicWebSearchTool {
  const tool: AnthropicWebSearchTool = { type: "web_search_20250305", name: "web_search" };
  if (options === true) return tool;
  if (options.maxUses !== undefined) tool.max_uses = options.maxUses;
  if (options.allowedDomains && options.allowedDomains.length > 0) tool.allowed_domains = options.allowedDomains;
  return tool;
}

import type { Context, Model, StreamOptions, Tool } from "../../types.js";
import { isOpenAIHost } from "../openai-completions/request.js";
import { toStrictSchema } from "../strict-schema.js";
import { convertResponsesMessages } from "./convert-messages.js";
import type { ResponsesRequest, ResponsesTool } from "./wire.js";

/**
 * Converts gyre tools to Responses API functions. `strict` is always sent because the API
 * defaults it to true: a tool with `strict: true` gets a strict-compatible schema where
 * `compat.supportsStrictTools` allows it (default: OpenAI and Azure); everywhere else it is sent
 * as `strict: false` with its schema as written, i.e. the flag is ignored.
 */
export function convertResponsesTools(tools: Tool[], supportsStrict: boolean): ResponsesTool[] {
  return tools.map((tool) => {
    const strict = supportsStrict && tool.strict === true;
    return {
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: strict ? toStrictSchema(tool.parameters) : tool.parameters,
      strict,
    };
  });
}

/**
 * Builds the streaming request body for `POST {baseUrl}/responses`. Nothing is stored server
 * side (`store: false`); `webSearch` adds the built-in `web_search` tool; for reasoning models the encrypted reasoning is requested so it can be
 * sent back with the next turn's function call outputs.
 */
export function buildResponsesRequest(model: Model, context: Context, options: StreamOptions): ResponsesRequest {
  const request: ResponsesRequest = {
    model: model.id,
    input: convertResponsesMessages(model, context.messages),
    stream: true,
    store: false,
  };
  if (context.systemPrompt) request.instructions = context.systemPrompt;
  if (options.maxTokens !== undefined) request.max_output_tokens = options.maxTokens;
  if (options.temperature !== undefined) request.temperature = options.temperature;
  if (model.reasoning && options.thinking && options.thinking !== "off") {
    request.reasoning = { effort: options.thinking, summary: "auto" };
    request.include = ["reasoning.encrypted_content"];
  }
  if (context.tools && context.tools.length > 0) {
    const supportsStrict = model.compat?.supportsStrictTools ?? isOpenAIHost(model.baseUrl);
    request.tools = convertResponsesTools(context.tools, supportsStrict);
  }
  if (options.webSearch) {
    const domains = options.webSearch === true ? [] : (options.webSearch.allowedDomains ?? []);
    const tool: ResponsesTool = {
      type: "web_search",
      ...(domains.length > 0 ? { filters: { allowed_domains: domains } } : {}),
    };
    request.tools = [...(request.tools ?? []), tool];
    // The pages searched come only when asked for; without them a result lists only the cited ones.
    request.include = [...(request.include ?? []), "web_search_call.action.sources"];
  }
  if (options.sessionId && isOpenAIHost(model.baseUrl)) request.prompt_cache_key = options.sessionId;
  return request;
}

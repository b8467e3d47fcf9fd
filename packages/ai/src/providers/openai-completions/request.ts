import { stringifyRequest } from "../../transport/request-json.js";
import type { Context, Model, StreamOptions, Tool } from "../../types.js";
import { toStrictSchema } from "../strict-schema.js";
import { cachedMessageJson, convertCompletionsMessages } from "./convert-messages.js";
import type { ChatRequest, ChatTool, ResolvedCompat } from "./wire.js";

/** Whether `baseUrl` is OpenAI's own API or Azure OpenAI (which share its strictness). */
export function isOpenAIHost(baseUrl: string): boolean {
  const url = baseUrl.toLowerCase();
  return url.includes("api.openai.com") || url.includes(".openai.azure.com");
}

/**
 * Decides every compat switch for a Chat Completions model: explicit `model.compat` values win;
 * absent ones default from the base URL (OpenAI/Azure: `max_completion_tokens`, developer role,
 * strict tools; Mistral: 9-character tool-call ids; other servers: `max_tokens`, no strict).
 */
export function resolveCompletionsCompat(model: Model): ResolvedCompat {
  const openai = isOpenAIHost(model.baseUrl);
  const mistral = model.baseUrl.toLowerCase().includes("mistral.ai");
  const compat = model.compat ?? {};
  return {
    maxTokensField: compat.maxTokensField ?? (openai ? "max_completion_tokens" : "max_tokens"),
    supportsUsageInStreaming: compat.supportsUsageInStreaming ?? true,
    supportsDeveloperRole: compat.supportsDeveloperRole ?? openai,
    supportsReasoningEffort: compat.supportsReasoningEffort ?? true,
    supportsStrictTools: compat.supportsStrictTools ?? openai,
    toolCallIdFormat: compat.toolCallIdFormat ?? (mistral ? "alphanumeric9" : "any"),
    sendsReasoningContent: !openai,
  };
}

/** Request headers: `Authorization` only when a key is given (local servers need none), then model and call headers. */
export function createOpenAIHeaders(model: Model, options: StreamOptions): Record<string, string> {
  return {
    accept: "text/event-stream",
    ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    ...model.headers,
    ...options.headers,
  };
}

/**
 * Converts gyre tools to Chat Completions functions. A tool with `strict: true` is sent with
 * `strict: true` and a strict-compatible schema only where the server supports it
 * (`supportsStrictTools`); elsewhere the flag is dropped and the schema sent as written.
 */
export function convertCompletionsTools(tools: Tool[], supportsStrict: boolean): ChatTool[] {
  return tools.map((tool) => {
    const strict = supportsStrict && tool.strict === true;
    return {
      type: "function",
      function: {
        name: tool.name,
        description: tool.description,
        parameters: strict ? toStrictSchema(tool.parameters) : tool.parameters,
        ...(strict ? { strict: true } : {}),
      },
    };
  });
}

/** Builds the streaming request body for `POST {baseUrl}/chat/completions`. */
export function buildCompletionsRequest(model: Model, context: Context, options: StreamOptions): ChatRequest {
  const compat = resolveCompletionsCompat(model);
  // `model` and `messages` come first: `serializeCompletionsRequest` writes them itself.
  const request: ChatRequest = {
    model: model.id,
    messages: convertCompletionsMessages(model, context, compat),
    stream: true,
  };
  if (compat.supportsUsageInStreaming) request.stream_options = { include_usage: true };
  if (options.maxTokens !== undefined) request[compat.maxTokensField] = options.maxTokens;
  if (options.temperature !== undefined) request.temperature = options.temperature;
  if (model.reasoning && compat.supportsReasoningEffort && options.thinking && options.thinking !== "off") {
    request.reasoning_effort = options.thinking;
  }
  if (context.tools && context.tools.length > 0) {
    request.tools = convertCompletionsTools(context.tools, compat.supportsStrictTools);
  }
  if (options.sessionId && isOpenAIHost(model.baseUrl)) request.prompt_cache_key = options.sessionId;
  return request;
}

const encoder = new TextEncoder();
const comma = encoder.encode(",");

/**
 * `JSON.stringify(request)` as UTF-8, byte for byte, but reusing each history message's encoded
 * JSON from earlier calls (see `convertCompletionsMessages`): a long history is copied, not
 * walked, and no request-sized string is made.
 */
export function serializeCompletionsRequest(request: ChatRequest): Uint8Array {
  const { model, messages, ...rest } = request;
  const parts: Uint8Array[] = [encoder.encode(`{"model":${stringifyRequest(model)},"messages":[`)];
  let length = (parts[0]?.length ?? 0) + Math.max(0, messages.length - 1);
  for (const message of messages) {
    if (parts.length > 1) parts.push(comma);
    const part = cachedMessageJson(message) ?? encoder.encode(stringifyRequest(message));
    parts.push(part);
    length += part.length;
  }
  // `rest` always holds `stream`, so its JSON is `{"stream":true…}`: the brace is dropped and the rest follows.
  const tail = encoder.encode(`],${stringifyRequest(rest).slice(1)}`);
  parts.push(tail);
  const body = new Uint8Array(length + tail.length);
  let offset = 0;
  for (const part of parts) {
    body.set(part, offset);
    offset += part.length;
  }
  return body;
}

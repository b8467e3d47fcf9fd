import type { AssistantMessageEventStream, StreamFunction } from "../../event-stream.js";
import { parseJsonData, readSse } from "../../transport/sse.js";
import type { Context, Model, StreamOptions } from "../../types.js";
import { createOpenAIHeaders } from "../openai-completions/request.js";
import { collectStrictSchemas } from "../openai-shared.js";
import { postProviderRequest } from "../post-provider-request.js";
import { runProvider } from "../run-provider.js";
import { ResponsesEventParser } from "./parse-events.js";
import { buildResponsesRequest } from "./request.js";
import type { ResponsesEvent } from "./wire.js";

/**
 * Streams one response from `POST {model.baseUrl}/responses` (OpenAI Responses API and compatible
 * servers). Returns at once and never throws or rejects: HTTP errors, `error`/`response.failed`
 * events, malformed SSE, a stream without `response.completed`, idle timeouts and aborts end the
 * stream with `error` (aborts with reason `aborted`), keeping any partial content.
 */
export const streamOpenAIResponses: StreamFunction = (
  model: Model,
  context: Context,
  options: StreamOptions,
): AssistantMessageEventStream =>
  runProvider(model, options, async (builder) => {
    const request = buildResponsesRequest(model, context, options);
    const functions = (request.tools ?? []).flatMap((tool) => (tool.type === "function" ? [tool] : []));
    const strictSchemas = collectStrictSchemas(functions, context.tools);
    // Error messages name the provider the user configured ("openai-responses", "azure"…).
    const providerLabel = model.provider;
    const response = await postProviderRequest(builder, options, {
      url: `${model.baseUrl.replace(/\/+$/, "")}/responses`,
      headers: createOpenAIHeaders(model, options),
      body: request,
      providerLabel,
    });
    const parser = new ResponsesEventParser(builder, strictSchemas);
    try {
      for await (const event of readSse(response, { signal: options.signal, idleTimeoutMs: options.idleTimeoutMs })) {
        const data = event.data.trim();
        // OpenRouter ends a Responses stream with Chat Completions' sentinel.
        if (data === "[DONE]") break;
        if (data === "") continue;
        parser.onEvent(parseJsonData(data, providerLabel) as ResponsesEvent, event.event);
        if (parser.done) break;
      }
    } finally {
      response.body?.cancel().catch(() => {});
    }
  });

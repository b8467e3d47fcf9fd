import type { AssistantMessageEventStream } from "../../event-stream.js";
import { postJson } from "../../transport/http.js";
import { parseJsonData, readSse } from "../../transport/sse.js";
import type { Context, Model, StreamFunction, StreamOptions } from "../../types.js";
import { runProvider } from "../message-builder.js";
import { collectStrictSchemas } from "../openai-shared.js";
import { CompletionsChunkParser } from "./parse-chunks.js";
import { buildCompletionsRequest, createOpenAIHeaders, serializeCompletionsRequest } from "./request.js";
import type { ChatChunk } from "./wire.js";

/**
 * Streams one response from `POST {model.baseUrl}/chat/completions` (OpenAI and every
 * OpenAI-compatible server). Returns at once and never throws or rejects: HTTP errors, in-stream
 * errors, malformed SSE, idle timeouts and aborts end the stream with `error` (aborts with
 * reason `aborted`), keeping any partial content. Retries happen only before the first byte.
 */
export const streamOpenAICompletions: StreamFunction = (
  model: Model,
  context: Context,
  options: StreamOptions,
): AssistantMessageEventStream =>
  runProvider(model, options, async (builder) => {
    const request = buildCompletionsRequest(model, context, options);
    const strictSchemas = collectStrictSchemas(
      (request.tools ?? []).map((tool) => tool.function),
      context.tools,
    );
    // Error messages name the provider the user configured ("openai", "groq", "ollama"…).
    const providerLabel = model.provider;
    const response = await postJson({
      url: `${model.baseUrl.replace(/\/+$/, "")}/chat/completions`,
      headers: createOpenAIHeaders(model, options),
      serializedBody: serializeCompletionsRequest(request),
      signal: options.signal,
      retry: options.retry,
      onRetry: options.onRetry,
      ...(options.idleTimeoutMs !== undefined ? { responseTimeoutMs: options.idleTimeoutMs } : {}),
      providerLabel,
    });
    const parser = new CompletionsChunkParser(builder, strictSchemas);
    let sawDone = false;
    try {
      for await (const event of readSse(response, { signal: options.signal, idleTimeoutMs: options.idleTimeoutMs })) {
        const data = event.data.trim();
        if (data === "[DONE]") {
          sawDone = true;
          break;
        }
        if (data === "") continue;
        const payload = parseJsonData(data, providerLabel);
        if (event.event === "error") parser.onErrorEvent(payload);
        else parser.onChunk(payload as ChatChunk);
        if (parser.errorMessage !== undefined) break;
      }
    } finally {
      // Stops the download when we leave early ([DONE], an in-stream error, a thrown parse error).
      response.body?.cancel().catch(() => {});
    }
    parser.complete(sawDone);
  });

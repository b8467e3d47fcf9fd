import { GyreError } from "../../errors.js";
import type { AssistantMessageEventStream, StreamFunction } from "../../event-stream.js";
import { parseJsonData, readSse } from "../../transport/sse.js";
import type { Context, Model, StreamOptions } from "../../types.js";
import { collectStrictSchemas } from "../openai-shared.js";
import { postProviderRequest } from "../post-provider-request.js";
import { runProvider } from "../run-provider.js";
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
    const response = await postProviderRequest(builder, options, {
      url: `${model.baseUrl.replace(/\/+$/, "")}/chat/completions`,
      headers: createOpenAIHeaders(model, options),
      serializedBody: serializeCompletionsRequest(request),
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
    if (parser.errorMessage !== undefined && parser.errorStatus !== undefined) {
      // Retried by `runProvider` when nothing was emitted yet, like the same status before the headers.
      throw new GyreError("http", parser.errorMessage, { status: parser.errorStatus });
    }
    parser.complete(sawDone);
  });

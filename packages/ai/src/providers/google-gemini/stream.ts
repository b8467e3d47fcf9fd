import { GyreError } from "../../errors.js";
import type { AssistantMessageEventStream, StreamFunction } from "../../event-stream.js";
import { createSseDecoder, parseJsonData, readTextChunks, type SseEvent } from "../../transport/sse.js";
import type { Context, Model, StreamOptions } from "../../types.js";
import { postProviderRequest } from "../post-provider-request.js";
import { runProvider } from "../run-provider.js";
import { buildGeminiRequest } from "./build-request.js";
import { JsonArrayReader } from "./json-array-reader.js";
import { GeminiStreamReader } from "./stream-reader.js";
import type { GeminiChunk } from "./wire.js";

const defaultBaseUrl = "https://generativelanguage.googleapis.com/v1beta";

/**
 * The `google-gemini` stream function: POSTs `${baseUrl}/models/${id}:streamGenerateContent?alt=sse`
 * and turns the reply into gyre events. Reads both body formats Google serves — SSE and, when a
 * server ignores `alt=sse`, one incrementally streamed JSON array — telling them apart by the
 * first byte. Returns at once and never throws or rejects: HTTP errors, a blocked prompt, a
 * non-STOP finish reason, a body without a finish reason, idle timeouts and aborts all end the
 * stream with `error`, keeping whatever content arrived.
 */
export const streamGoogleGemini: StreamFunction = (
  model: Model,
  context: Context,
  options: StreamOptions = {},
): AssistantMessageEventStream =>
  runProvider(model, options, async (builder) => {
    const baseUrl = (model.baseUrl || defaultBaseUrl).replace(/\/+$/, "");
    const response = await postProviderRequest(builder, options, {
      url: `${baseUrl}/models/${model.id}:streamGenerateContent?alt=sse`,
      headers: createHeaders(model, options),
      body: buildGeminiRequest(model, context, options),
      providerLabel: "Google",
    });
    const reader = new GeminiStreamReader(builder);
    for await (const chunk of readChunks(response, options)) reader.handle(chunk);
    reader.end();
  });

function createHeaders(model: Model, options: StreamOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  // Only the caller's key: a library must not pick up secrets from the process on its own.
  const apiKey = options.apiKey;
  if (apiKey) headers["x-goog-api-key"] = apiKey;
  Object.assign(headers, model.headers, options.headers);
  const hasAuth = Object.keys(headers).some((name) => /^(x-goog-api-key|authorization)$/i.test(name));
  if (!hasAuth) {
    throw new GyreError(
      "missing_api_key",
      "No API key for Google: pass apiKey (for example from GEMINI_API_KEY) or give an x-goog-api-key/authorization header.",
    );
  }
  return headers;
}

/** Yields response chunks from either body format; the first non-blank character decides. */
async function* readChunks(response: Response, options: StreamOptions): AsyncGenerator<GeminiChunk> {
  let format: "sse" | "array" | undefined;
  const arrayReader = new JsonArrayReader();
  const sse = createSseDecoder();
  const toChunks = function* (events: readonly SseEvent[]): Generator<GeminiChunk> {
    for (const { data } of events) {
      if (data.trim() !== "") yield parseJsonData(data, "Google") as GeminiChunk;
    }
  };
  const text = readTextChunks(response, { signal: options.signal, idleTimeoutMs: options.idleTimeoutMs });
  for await (const piece of text) {
    if (!format) {
      const first = piece.trimStart()[0];
      if (first === undefined) continue;
      format = first === "[" || first === "{" ? "array" : "sse";
    }
    if (format === "array") {
      for (const element of arrayReader.feed(piece)) yield element as GeminiChunk;
    } else {
      yield* toChunks(sse.feed(piece));
    }
  }
  if (format === "array") arrayReader.finish();
  else yield* toChunks(sse.end());
}

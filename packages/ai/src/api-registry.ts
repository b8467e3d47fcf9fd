import { createAssistantMessage } from "./create-assistant-message.js";
import type { StreamFunction } from "./event-stream.js";
import { AssistantMessageEventStream } from "./event-stream.js";
import { processSlot } from "./process-state.js";
import type { Api, AssistantMessage, Context, Model, StreamOptions } from "./types.js";

/** One per process: an API registered through any copy of @gyre/ai is known to every copy. */
const registry = processSlot("apis", () => new Map<string, StreamFunction>());

/** Registers (or replaces) the stream function for a wire API. */
export function registerApi(api: Api, streamFunction: StreamFunction): void {
  registry.set(api, streamFunction);
}

/**
 * Registers `streamFunction` unless the API already has one: how each copy of the package adds
 * the built-in APIs, so a second copy loaded later does not replace what a program registered.
 */
export function registerApiIfAbsent(api: Api, streamFunction: StreamFunction): void {
  if (!registry.has(api)) registry.set(api, streamFunction);
}

/** The wire APIs with a registered stream function. */
export function getRegisteredApis(): string[] {
  return [...registry.keys()];
}

/**
 * Streams one model response. Returns at once; never throws or rejects afterwards: every
 * failure, including an unknown API, ends the stream with an `error` event.
 */
export function stream(model: Model, context: Context, options: StreamOptions = {}): AssistantMessageEventStream {
  const streamFunction = registry.get(model.api);
  if (streamFunction) {
    try {
      return streamFunction(model, context, options);
    } catch (error) {
      return createFailedStream(model, `The ${model.api} provider failed to start: ${(error as Error).message}`);
    }
  }
  return createFailedStream(
    model,
    `No provider is registered for API "${model.api}"; known APIs: ${getRegisteredApis().join(", ")}.`,
  );
}

/** `stream(...).result()`: the final assistant message. Never rejects. */
export function complete(model: Model, context: Context, options: StreamOptions = {}): Promise<AssistantMessage> {
  return stream(model, context, options).result();
}

function createFailedStream(model: Model, errorMessage: string): AssistantMessageEventStream {
  const result = new AssistantMessageEventStream();
  const message = createAssistantMessage(model, { stopReason: "error", errorMessage });
  result.push({ type: "start", message: structuredClone(message) });
  result.push({ type: "error", reason: "error", message });
  return result;
}

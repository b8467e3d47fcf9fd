import { createAssistantMessage } from "../create-assistant-message.js";
import type { StreamFunction } from "../event-stream.js";
import { AssistantMessageEventStream } from "../event-stream.js";
import type { AssistantMessageEvent, Model } from "../types.js";

/**
 * A `StreamFunction` that loads the real one on its first call (`load`, an `await import()`).
 * Returns at once and never throws or rejects: it forwards every event of the real stream, and a
 * failing `load` (or a real function that throws) ends the stream with `error`. The module is
 * loaded once; a failed load is retried on the next call.
 */
export function createLazyStreamFunction(api: string, load: () => Promise<StreamFunction>): StreamFunction {
  let loading: Promise<StreamFunction> | undefined;
  const loadOnce = () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  return (model, context, options) => {
    const outer = new AssistantMessageEventStream();
    void forward(outer, model, async () => (await loadOnce())(model, context, options), api);
    return outer;
  };
}

async function forward(
  outer: AssistantMessageEventStream,
  model: Model,
  start: () => Promise<AsyncIterable<AssistantMessageEvent>>,
  api: string,
): Promise<void> {
  try {
    for await (const event of await start()) outer.push(event);
    if (!outer.isEnded) fail(outer, model, `The ${api} provider ended its stream without a final event.`);
  } catch (error) {
    fail(outer, model, `The ${api} provider failed to load: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function fail(outer: AssistantMessageEventStream, model: Model, errorMessage: string): void {
  if (outer.isEnded) return;
  const message = createAssistantMessage(model, { stopReason: "error", errorMessage });
  outer.push({ type: "start", message: structuredClone(message) });
  outer.push({ type: "error", reason: "error", message });
}

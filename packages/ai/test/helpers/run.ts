import { expect } from "vitest";
import { stream } from "../../src/index.js";
import type { AssistantMessageEvent, Model, StreamOptions } from "../../src/types.js";
import type { Replayed } from "./replay.js";

/**
 * Streams one "hi" request to `model`, asserting the never-throw contract (no throw on start, an
 * assistant message at the end), and collects every event, passing each to `onEvent` as it comes.
 */
export async function run(
  model: Model,
  options: StreamOptions = {},
  onEvent?: (event: AssistantMessageEvent) => void,
): Promise<Replayed> {
  let threw = false;
  let response: ReturnType<typeof stream> | undefined;
  try {
    response = stream(model, { messages: [{ role: "user", content: "hi", timestamp: 1 }] }, options);
  } catch {
    threw = true;
  }
  expect(threw).toBe(false);
  const events: AssistantMessageEvent[] = [];
  for await (const event of response!) {
    events.push(event);
    onEvent?.(event);
  }
  const message = await response!.result();
  expect(message.role).toBe("assistant");
  return { message, events };
}

/** `run`, aborting at the first text delta; `msAfterAbort` is the time from the abort to the end. */
export async function runAbortingAtFirstText(
  model: Model,
  options: StreamOptions = {},
): Promise<Replayed & { msAfterAbort: number }> {
  const controller = new AbortController();
  let abortedAt = 0;
  const replayed = await run(model, { ...options, signal: controller.signal }, (event) => {
    if (event.type === "text_delta" && abortedAt === 0) {
      abortedAt = performance.now();
      controller.abort();
    }
  });
  return { ...replayed, msAfterAbort: performance.now() - abortedAt };
}

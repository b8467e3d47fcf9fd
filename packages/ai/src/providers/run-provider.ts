import { describeError, isAbortError } from "../errors.js";
import { AssistantMessageEventStream } from "../event-stream.js";
import { backoffDelayMs, isRetryableFailure, resolveRetry, sleep } from "../transport/http.js";
import type { Model, StreamOptions } from "../types.js";
import { MessageBuilder } from "./message-builder.js";

/**
 * Runs a provider body with the never-throw contract: returns a stream at once; whatever the
 * body throws or however it returns, the stream ends with exactly one terminal event. A body
 * that returns without calling `finish` ends as an error (a stream that lost its terminal event
 * is never a successful answer).
 *
 * A retryable fault after the response headers (an in-stream overloaded or rate-limit error the
 * body throws as a `GyreError("http")` with its status, an idle timeout, a broken connection)
 * sends the request again, with the same backoff as `postJson`, but only while the attempt
 * emitted no content block: nothing the user saw is repeated, and a partial is never kept as an
 * answer.
 */
export function runProvider(
  model: Model,
  options: StreamOptions,
  body: (builder: MessageBuilder) => Promise<void>,
): AssistantMessageEventStream {
  const stream = new AssistantMessageEventStream();
  const builder = new MessageBuilder(model, stream, { maxToolArgumentBytes: options.maxToolArgumentBytes });
  const retry = resolveRetry(options.retry);
  const attempt = async (): Promise<unknown> => {
    try {
      await body(builder);
      return undefined;
    } catch (error) {
      return error ?? new Error("The provider failed without saying why.");
    }
  };
  const run = async () => {
    builder.start();
    for (let retries = 0; ; retries++) {
      const error = await attempt();
      if (error === undefined) {
        if (!builder.isTerminated) {
          if (options.signal?.aborted) builder.fail("Request was aborted.", true);
          else builder.fail("The stream ended before the provider sent its final event; the answer may be incomplete.");
        }
        return;
      }
      if (options.signal?.aborted || isAbortError(error)) {
        builder.fail(
          options.signal?.aborted ? "Request was aborted." : describeError(error),
          !!options.signal?.aborted,
        );
        return;
      }
      const canRetry = builder.responseStarted && builder.message.content.length === 0 && !builder.isTerminated;
      if (!canRetry || !isRetryableFailure(error) || retries >= retry.maxRetries) {
        const gaveUp = canRetry && retries > 0 ? ` (gave up after ${retries + 1} attempts)` : "";
        builder.fail(describeError(error) + gaveUp);
        return;
      }
      const delayMs = backoffDelayMs(retry, retries);
      options.onRetry?.({ attempt: retries + 1, maxRetries: retry.maxRetries, delayMs, reason: describeError(error) });
      try {
        await sleep(delayMs, options.signal);
      } catch {
        builder.fail("Request was aborted.", true);
        return;
      }
      builder.resetForRetry();
    }
  };
  queueMicrotask(() => void run());
  return stream;
}

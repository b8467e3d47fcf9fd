import { createParser } from "eventsource-parser";
import { GyreError } from "../errors.js";

export type SseEvent = { event: string | undefined; data: string };

export type ReadOptions = {
  signal?: AbortSignal;
  /** Fails the read when no byte arrives for this long. Default 120000 ms. */
  idleTimeoutMs?: number;
};

/**
 * Yields the response body as decoded text chunks. Throws `GyreError("timeout")` when the body
 * goes silent past the idle timeout and `GyreError("aborted")` when `signal` fires; in both cases
 * the underlying connection is cancelled.
 */
export async function* readTextChunks(response: Response, options: ReadOptions = {}): AsyncGenerator<string> {
  if (!response.body) throw new GyreError("bad_stream", "The provider sent a response without a body.");
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const idleMs = options.idleTimeoutMs ?? 120_000;
  let failure: GyreError | undefined;
  const stop = (error: GyreError) => {
    failure ??= error;
    reader.cancel(error).catch(() => {});
  };
  // A watchdog, refreshed on every chunk, rather than a per-read race: cheap on the hot path.
  const watchdog = setTimeout(
    () => stop(new GyreError("timeout", `The provider sent nothing for ${formatWait(idleMs)}; gave up waiting.`)),
    idleMs,
  );
  const onAbort = () => stop(new GyreError("aborted", "Request was aborted."));
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    while (true) {
      let result: Awaited<ReturnType<typeof reader.read>>;
      try {
        result = await reader.read();
      } catch (error) {
        if (failure) throw failure;
        if (options.signal?.aborted) throw new GyreError("aborted", "Request was aborted.");
        throw new GyreError("network", `The connection broke mid-stream: ${(error as Error).message}`, {
          cause: error,
        });
      }
      if (failure) throw failure;
      if (result.done) break;
      watchdog.refresh();
      const text = decoder.decode(result.value, { stream: true });
      if (text) yield text;
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  } finally {
    clearTimeout(watchdog);
    options.signal?.removeEventListener("abort", onAbort);
    reader.releaseLock();
  }
}

/** "120 s", or "300 ms" for a wait under a second (which rounded to "0 s"). */
function formatWait(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/** Incremental SSE decoding: `feed` text as it arrives, `end` once the body is over. */
export type SseDecoder = {
  /** The events the text completed (possibly none). */
  feed(text: string): SseEvent[];
  /** The events still open when the body ended. */
  end(): SseEvent[];
};

/** The one SSE decoder every provider uses (over eventsource-parser), for bodies read piece by piece. */
export function createSseDecoder(): SseDecoder {
  let pending: SseEvent[] = [];
  const parser = createParser({
    onEvent: (message) => {
      pending.push({ event: message.event, data: message.data });
    },
  });
  const take = () => {
    const events = pending;
    pending = [];
    return events;
  };
  return {
    feed(text) {
      parser.feed(text);
      return take();
    },
    end() {
      // A final event without its blank-line terminator still counts.
      parser.feed("\n\n");
      return take();
    },
  };
}

/** Yields server-sent events from a response body (`event:` name and joined `data:` lines). */
export async function* readSse(response: Response, options: ReadOptions = {}): AsyncGenerator<SseEvent> {
  const decoder = createSseDecoder();
  for await (const chunk of readTextChunks(response, options)) yield* decoder.feed(chunk);
  yield* decoder.end();
}

/** Parses an SSE data payload as JSON, throwing a clear `bad_stream` error when it is not. */
export function parseJsonData(data: string, providerLabel: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    const shown = data.length > 200 ? `${data.slice(0, 200)}…` : data;
    throw new GyreError("bad_stream", `${providerLabel} sent a malformed stream event: ${shown}`);
  }
}

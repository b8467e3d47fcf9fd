import type { AssistantMessage, AssistantMessageEvent, Context, Model, StreamOptions } from "./types.js";

/**
 * An async-iterable stream of provider events with `.result()`.
 * Producers `push` events; a `done` or `error` event ends the stream and settles `result()`.
 * `result()` never rejects: it resolves with the final message (stopReason `error`/`aborted` on failure).
 * Iterating is optional; events are buffered until read (one reader).
 */
export class AssistantMessageEventStream implements AsyncIterable<AssistantMessageEvent> {
  private readonly queue: AssistantMessageEvent[] = [];
  private waiting: ((result: IteratorResult<AssistantMessageEvent>) => void) | undefined;
  private ended = false;
  private finalMessage: AssistantMessage | undefined;
  private readonly settled: Promise<AssistantMessage>;
  private resolveResult!: (message: AssistantMessage) => void;

  constructor() {
    this.settled = new Promise((resolve) => {
      this.resolveResult = resolve;
    });
  }

  /** Adds an event. Events after the terminal one are ignored. */
  push(event: AssistantMessageEvent): void {
    if (this.ended) return;
    if (event.type === "done" || event.type === "error") {
      this.ended = true;
      this.finalMessage = event.message;
      this.resolveResult(event.message);
    }
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
  }

  /** Whether the terminal event has been pushed. */
  get isEnded(): boolean {
    return this.ended;
  }

  /** The final message; resolves once the terminal event is pushed. Never rejects. */
  result(): Promise<AssistantMessage> {
    return this.settled;
  }

  /** The final message if the stream has ended. */
  get message(): AssistantMessage | undefined {
    return this.finalMessage;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<AssistantMessageEvent> {
    while (true) {
      const next = this.queue.shift();
      if (next) {
        yield next;
        if (next.type === "done" || next.type === "error") return;
        continue;
      }
      if (this.ended) return;
      const result = await new Promise<IteratorResult<AssistantMessageEvent>>((resolve) => {
        this.waiting = resolve;
      });
      if (result.done) return;
      yield result.value;
      if (result.value.type === "done" || result.value.type === "error") return;
    }
  }
}

/**
 * A provider's stream function (here beside the stream it returns, so types.ts imports nothing). Contract: returns at once and never throws or rejects;
 * every failure (HTTP, bad SSE, abort, timeout) ends the stream with an `error` event.
 */
export type StreamFunction = (model: Model, context: Context, options: StreamOptions) => AssistantMessageEventStream;

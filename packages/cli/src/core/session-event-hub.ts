import { describeError } from "@gyre/ai";
import type { ExtensionRunner } from "./extensions/extension-runner.js";
import type { NoticeEvent, SessionEvent } from "./session-events.js";

/**
 * Fans a session's events out to its listeners (in order, synchronously) and its extensions. A
 * throwing listener is reported as a `notice`, never to stderr.
 */
export class SessionEventHub {
  private readonly listeners = new Set<(event: SessionEvent) => void>();

  constructor(private readonly extensions: ExtensionRunner | undefined) {}

  subscribe(listener: (event: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** To listeners and (not awaited) extensions. */
  emit(event: SessionEvent): void {
    this.notify(event);
    void this.extensions?.emit(event);
  }

  /** Notices go to listeners only: an extension handler failing on one would report another. */
  notice(source: NoticeEvent["source"], message: string, level: NoticeEvent["level"] = "warning"): void {
    this.notify({ type: "notice", level, source, message });
  }

  /** To listeners only (agent events reach extensions through the agent's own subscription). */
  notify(event: SessionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        // A notice about a failing notice listener would recurse; that one is dropped.
        if (event.type !== "notice") this.notice("listener", `an event listener failed: ${describeError(error)}`);
      }
    }
  }
}

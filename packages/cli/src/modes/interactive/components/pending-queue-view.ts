import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import { sanitizeText } from "../sanitize-text.js";
import { style } from "../theme.js";

/** A message typed while the agent works: steering (next turn boundary) or follow-up (when it stops). */
export type PendingMessage = { kind: "steer" | "followUp"; text: string };

/** The messages waiting to be delivered, one line each, above the editor. Empty when none wait. */
export class PendingQueueView implements Component {
  private items: PendingMessage[] = [];
  private cachedWidth = -1;
  private cachedLines: string[] | undefined;

  get messages(): readonly PendingMessage[] {
    return this.items;
  }

  /** Shows what the session says waits (its `queue_update` event). */
  set(messages: readonly PendingMessage[]): void {
    this.items = [...messages];
    this.cachedLines = undefined;
  }

  invalidate(): void {
    this.cachedLines = undefined;
  }

  render(width: number): string[] {
    if (this.cachedLines && this.cachedWidth === width) return this.cachedLines;
    this.cachedLines = this.items.map((item) => {
      const label = item.kind === "steer" ? "steer" : "follow-up";
      const text = sanitizeText(item.text).replace(/\n/g, " ⏎ ");
      return truncateToWidth(style.gray(`  ⋯ ${label} (pending): ${text}`), width);
    });
    this.cachedWidth = width;
    return this.cachedLines;
  }
}

import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import { sanitizeText } from "../sanitize-text.js";
import { style } from "../theme.js";

/**
 * One line above the editor for what is happening now: working (live: a spinner and figures),
 * retrying (with a countdown), compacting. Always one line tall so the editor does not jump.
 * Timers run only while a run or a wait is on; an idle screen never schedules a render.
 */
export class StatusLineView implements Component {
  private text = "";
  private countdown: { prefix: string; until: number; suffix: string; timer: NodeJS.Timeout } | undefined;
  private live: { text: (frame: number) => string; frame: number; timer: NodeJS.Timeout } | undefined;
  private cachedWidth = -1;
  private cachedLine: string | undefined;

  constructor(private readonly requestRender: () => void) {}

  /** Shows `text` (pre-styled by the caller; "" for nothing) and stops any countdown. */
  set(text: string): void {
    this.stopCountdown();
    this.update(text);
  }

  /** Shows `prefix <seconds left>s suffix`, ticking each second until `until` (epoch ms). */
  setCountdown(prefix: string, until: number, suffix: string): void {
    this.stopCountdown();
    const timer = setInterval(() => this.tick(), 1000);
    timer.unref();
    this.countdown = { prefix, until, suffix: sanitizeText(suffix).replace(/\n/g, " "), timer };
    this.tick();
  }

  stopCountdown(): void {
    if (this.countdown) clearInterval(this.countdown.timer);
    this.countdown = undefined;
    if (this.live) clearInterval(this.live.timer);
    this.live = undefined;
  }

  /** Whether the live line (`setLive`) is showing. */
  get isLive(): boolean {
    return this.live !== undefined;
  }

  /** Shows `text(frame)` (unstyled; shown grey), re-asked every `intervalMs` until the next `set`. */
  setLive(text: (frame: number) => string, intervalMs = 250): void {
    this.stopCountdown();
    const timer = setInterval(() => this.tickLive(), intervalMs);
    timer.unref();
    this.live = { text, frame: 0, timer };
    this.tickLive();
  }

  private tickLive(): void {
    const live = this.live;
    if (!live) return;
    this.update(style.gray(live.text(live.frame++)));
  }

  invalidate(): void {
    this.cachedLine = undefined;
  }

  render(width: number): string[] {
    if (this.cachedLine === undefined || this.cachedWidth !== width) {
      this.cachedLine = truncateToWidth(this.text, width);
      this.cachedWidth = width;
    }
    return [this.cachedLine];
  }

  private tick(): void {
    const countdown = this.countdown;
    if (!countdown) return;
    const seconds = Math.max(0, Math.ceil((countdown.until - Date.now()) / 1000));
    this.update(style.yellow(`${countdown.prefix} in ${seconds}s: ${countdown.suffix}`));
    if (seconds === 0) this.stopCountdown();
  }

  private update(text: string): void {
    if (text === this.text) return;
    this.text = text;
    this.cachedLine = undefined;
    this.requestRender();
  }
}

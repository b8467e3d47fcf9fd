/**
 * While an answer streams, deltas can arrive every millisecond; drawing a frame for each (or even
 * one per 16 ms, pi-tui's own limit) mostly rewrites the same status, editor and footer lines.
 * Streamed updates therefore ask for a frame through `soon()`, which draws at most once per
 * `intervalMs`; everything else (`now()`: a message ending, a tool starting, a key) draws at
 * once and takes any waiting streamed update along, so the latency of what the user does is
 * unchanged.
 */
export class FrameBudget {
  private timer: NodeJS.Timeout | undefined;
  private lastFrameAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly draw: () => void,
    private readonly intervalMs: number,
  ) {}

  /** A frame now, and none left waiting. */
  now(): void {
    this.cancel();
    this.frame();
  }

  /** A frame within `intervalMs` of the last one; calls in between share it. */
  soon(): void {
    if (this.timer) return;
    const wait = this.lastFrameAt + this.intervalMs - performance.now();
    if (wait <= 0) {
      this.frame();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.frame();
    }, wait);
    // A pending frame must not keep a finished process alive.
    this.timer.unref();
  }

  /** Drops a waiting frame (the screen is closing). */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private frame(): void {
    this.lastFrameAt = performance.now();
    this.draw();
  }
}

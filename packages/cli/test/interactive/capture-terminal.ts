import type { Terminal } from "@mariozechner/pi-tui";

/**
 * A `Terminal` with a fixed size that records every write instead of drawing: for counting the
 * bytes and frames the renderer produces. `screenText()` is not an emulator — it is the
 * concatenated output with escape sequences removed, enough to find text that was written.
 */
export class CaptureTerminal implements Terminal {
  readonly writes: string[] = [];
  private onInput: ((data: string) => void) | undefined;
  private onResize: (() => void) | undefined;

  constructor(
    private width = 100,
    private height = 30,
  ) {}

  start(onInput: (data: string) => void, onResize: () => void): void {
    this.onInput = onInput;
    this.onResize = onResize;
  }

  stop(): void {}

  async drainInput(): Promise<void> {}

  write(data: string): void {
    this.writes.push(data);
  }

  get columns(): number {
    return this.width;
  }

  get rows(): number {
    return this.height;
  }

  get kittyProtocolActive(): boolean {
    return false;
  }

  moveBy(lines: number): void {
    if (lines !== 0) this.write(lines > 0 ? `\x1b[${lines}B` : `\x1b[${-lines}A`);
  }

  hideCursor(): void {}
  showCursor(): void {}
  clearLine(): void {}
  clearFromCursor(): void {}
  clearScreen(): void {}
  setTitle(): void {}
  setProgress(): void {}

  /** Sends keyboard input as the terminal would. */
  input(data: string): void {
    this.onInput?.(data);
  }

  resize(width: number, height: number): void {
    this.width = width;
    this.height = height;
    this.onResize?.();
  }

  get bytes(): number {
    return this.writes.reduce((sum, write) => sum + Buffer.byteLength(write), 0);
  }

  /** Writes wrapped in synchronized-output markers (one per rendered frame). */
  get frames(): string[] {
    return this.writes.filter((write) => write.startsWith("\x1b[?2026h"));
  }

  /** Everything written, without escape sequences. */
  text(): string {
    return stripAnsi(this.writes.join(""));
  }
}

/** Removes CSI, OSC and APC sequences. */
export function stripAnsi(text: string): string {
  return text.replace(/\x1b\[[0-9;?:]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b_[^\x07]*\x07/g, "");
}

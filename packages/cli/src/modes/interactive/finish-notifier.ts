import type { NotifyChannel } from "../../core/config/settings.js";

/** Focus reporting (xterm's mode 1004): the terminal then sends CSI I on focus, CSI O on blur. */
const FOCUS_ON = "\x1b[?1004h";
const FOCUS_OFF = "\x1b[?1004l";
const FOCUS_IN = "\x1b[I";
const FOCUS_OUT = "\x1b[O";

/** Runs shorter than this end without a notification unless `notifyAfterMs` says otherwise. */
export const DEFAULT_NOTIFY_AFTER_MS = 10_000;

/** The channel and threshold (read at each run's end) and where the escape sequences go. */
export type FinishNotifierOptions = {
  /** The `notify` setting; unset rings the bell only when the terminal reported losing focus. */
  channel: NotifyChannel | undefined;
  afterMs?: number | undefined;
  /** Raw output to the terminal. */
  write(data: string): void;
  /** Inside tmux, OSC notifications must be wrapped to pass through (`TMUX` is set). */
  insideTmux?: boolean;
};

/**
 * The finish notification: when a run of at least `afterMs` ends, a bell, an OSC 9 or an
 * OSC 777 notification. Where the terminal reports focus, only while it is not focused; where it
 * does not, always (when a channel is configured).
 */
export class FinishNotifier {
  /** undefined until the terminal says (many never do). */
  private focused: boolean | undefined;

  constructor(private readonly options: FinishNotifierOptions) {}

  /** Asks the terminal to report focus changes; `stop` undoes it. */
  start(): void {
    if (this.options.channel !== "off") this.options.write(FOCUS_ON);
  }

  stop(): void {
    if (this.options.channel !== "off") this.options.write(FOCUS_OFF);
  }

  /** Takes a focus report out of the input; returns whether `data` was one (then consume it). */
  handleInput(data: string): boolean {
    if (data === FOCUS_IN) this.focused = true;
    else if (data === FOCUS_OUT) this.focused = false;
    else return false;
    return true;
  }

  /** A run ended after `durationMs`; notifies when it was long and the user may be away. Returns whether it did. */
  runEnded(durationMs: number, message: string): boolean {
    const { channel } = this.options;
    if (channel === "off" || durationMs < (this.options.afterMs ?? DEFAULT_NOTIFY_AFTER_MS)) return false;
    if (this.focused === true) return false;
    // Unconfigured: only a terminal that said it lost focus gets the bell.
    if (channel === undefined && this.focused !== false) return false;
    this.options.write(this.sequence(channel ?? "bell", message));
    return true;
  }

  private sequence(channel: Exclude<NotifyChannel, "off">, message: string): string {
    // An OSC payload ends at BEL or ESC: neither may appear in the text.
    const text = message.replace(/[\x00-\x1f\x7f]/g, " ");
    const osc =
      channel === "osc9" ? `\x1b]9;${text}\x07` : channel === "osc777" ? `\x1b]777;notify;gyre;${text}\x07` : "";
    if (channel === "bell") return "\x07";
    return this.options.insideTmux ? `\x1bPtmux;${osc.replace(/\x1b/g, "\x1b\x1b")}\x1b\\` : osc;
  }
}

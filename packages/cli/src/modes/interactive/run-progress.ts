import type { SessionEvent } from "../../core/agent-session.js";
import type { SessionStats } from "../../core/session-stats.js";
import { formatTokens } from "./components/footer-view.js";

/** The frames of the live status line's spinner. */
export const spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * What the live status line says while a run works: a spinner, the elapsed time, the tokens
 * streamed and the cost so far, the running tool and how long it has run, and the keys. Tokens
 * of the answer being streamed are estimated (4 characters a token) until its usage arrives.
 */
export class RunProgress {
  private startedAt = 0;
  private base = { output: 0, cost: 0 };
  private done = { output: 0, cost: 0 };
  private streamedChars = 0;
  private tool: { name: string; since: number } | undefined;

  constructor(private readonly getStats: () => SessionStats) {}

  /** A run began: its figures count from the session totals as they are now. */
  start(now = Date.now()): void {
    const stats = this.getStats();
    this.startedAt = now;
    this.base = { output: stats.tokens.output, cost: stats.cost };
    this.done = { ...this.base };
    this.streamedChars = 0;
    this.tool = undefined;
  }

  onEvent(event: SessionEvent, now = Date.now()): void {
    switch (event.type) {
      case "message_update": {
        const delta = event.event;
        if (delta.type === "text_delta" || delta.type === "thinking_delta") this.streamedChars += delta.delta.length;
        else if (delta.type === "toolcall_delta") this.streamedChars += delta.delta.length;
        return;
      }
      case "message_end": {
        if (event.message.role !== "assistant") return;
        const stats = this.getStats();
        this.done = { output: stats.tokens.output, cost: stats.cost };
        this.streamedChars = 0;
        return;
      }
      case "tool_execution_start":
        this.tool = { name: event.toolName, since: now };
        return;
      case "tool_execution_end":
        this.tool = undefined;
        return;
      default:
        return;
    }
  }

  /** The status line for `now`; `frame` advances the spinner. */
  text(frame: number, now = Date.now()): string {
    const tokens = this.done.output - this.base.output + Math.round(this.streamedChars / 4);
    const cost = this.done.cost - this.base.cost;
    const parts = [formatSeconds(now - this.startedAt), `↓${formatTokens(tokens)} tokens`, `$${cost.toFixed(3)}`];
    const what = this.tool ? `${this.tool.name} running ${formatSeconds(now - this.tool.since)}` : "working…";
    const icon = spinner[frame % spinner.length] ?? "";
    return `${icon} ${what} (${parts.join(" · ")}) · esc to interrupt · enter steers · alt+enter follow-up`;
  }
}

/** 42 s → "42s", 125 s → "2m 5s". */
export function formatSeconds(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
}

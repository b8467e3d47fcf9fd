import type { AgentEvent } from "@gyre/agent";
import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import type { SessionEvent } from "../../../core/agent-session.js";
import { sanitizeText } from "../sanitize-text.js";
import { style } from "../theme.js";

type SubagentState = "running" | "aborting" | "done" | "failed" | "aborted";

type SubagentLine = {
  agent: string;
  state: SubagentState;
  /** What it does now: "thinking", or the tool it runs with its target. */
  activity: string;
  turns: number;
  cost: number;
  /** Its latest tool calls, shown when expanded. */
  recent: string[];
};

const RECENT_SHOWN = 5;

/**
 * The subagents of the current request above the editor, one line each with their live status
 * (agent, what it does, turns, cost); Ctrl+O expands each to its latest tool calls. A finished
 * subagent's line goes when the main run ends; failed and aborted ones stay until the next
 * request, so an Esc shows what it stopped.
 */
export class SubagentLinesView implements Component {
  private readonly lines = new Map<string, SubagentLine>();
  private expanded = false;

  /** Feeds a session event; returns whether the view changed. */
  handleEvent(event: SessionEvent): boolean {
    if (event.type === "agent_start") return this.clearWhere(() => true);
    if (event.type === "agent_end") return this.clearWhere((line) => line.state === "done");
    if (event.type !== "subagent_event") return false;
    const key = `${event.parentToolCallId} ${event.agent}`;
    let line = this.lines.get(key);
    if (line === undefined) {
      line = { agent: event.agent, state: "running", activity: "starting", turns: 0, cost: 0, recent: [] };
      this.lines.set(key, line);
    }
    return applyEvent(line, event.event);
  }

  /** Esc: every running subagent is being stopped with its parent. */
  markAborting(): void {
    for (const line of this.lines.values()) if (line.state === "running") line.state = "aborting";
  }

  toggleExpanded(): void {
    this.expanded = !this.expanded;
  }

  invalidate(): void {}

  render(width: number): string[] {
    const rendered: string[] = [];
    for (const line of this.lines.values()) {
      const marker = this.expanded ? "▾" : "▸";
      const cost = `$${line.cost.toFixed(4)}`;
      const turns = `${line.turns} turn${line.turns === 1 ? "" : "s"}`;
      const text = `  ${marker} ${line.agent} · ${stateText(line)} · ${turns} · ${cost}`;
      rendered.push(truncateToWidth(colourOf(line.state)(text), width));
      if (this.expanded)
        for (const call of line.recent) rendered.push(truncateToWidth(style.gray(`      ${call}`), width));
    }
    return rendered;
  }

  private clearWhere(test: (line: SubagentLine) => boolean): boolean {
    let changed = false;
    for (const [key, line] of this.lines)
      if (test(line)) {
        this.lines.delete(key);
        changed = true;
      }
    return changed;
  }
}

function applyEvent(line: SubagentLine, event: AgentEvent): boolean {
  switch (event.type) {
    case "turn_start":
      if (line.state === "running") line.activity = "thinking";
      return true;
    case "tool_execution_start": {
      const call = describeCall(event.toolName, event.args);
      line.activity = call;
      line.recent = [...line.recent, call].slice(-RECENT_SHOWN);
      return true;
    }
    case "message_end":
      if (event.message.role !== "assistant") return false;
      line.turns++;
      line.cost += event.message.usage.cost.total;
      return true;
    case "agent_end":
      line.state = event.reason === "aborted" ? "aborted" : event.reason === "error" ? "failed" : "done";
      line.activity = line.state === "done" ? "done" : line.state;
      return true;
    default:
      return false;
  }
}

function describeCall(toolName: string, args: Record<string, unknown>): string {
  const target = args.path ?? args.command ?? args.pattern ?? args.url;
  const shown = typeof target === "string" ? ` ${sanitizeText(target).replace(/\s+/g, " ").slice(0, 60)}` : "";
  return `${toolName}${shown}`;
}

function stateText(line: SubagentLine): string {
  if (line.state === "aborting") return `aborting… (${line.activity})`;
  return line.activity;
}

function colourOf(state: SubagentState): (text: string) => string {
  if (state === "failed" || state === "aborted") return style.red;
  if (state === "aborting") return style.yellow;
  if (state === "done") return style.gray;
  return style.cyan;
}

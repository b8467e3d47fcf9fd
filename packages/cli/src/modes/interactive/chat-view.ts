import type { AgentMessage } from "@gyre/agent";
import { type AssistantMessage, applyAssistantMessageEvent } from "@gyre/ai";
import { Container } from "@mariozechner/pi-tui";
import type { SessionEvent } from "../../core/agent-session.js";
import { BRANCH_SUMMARY_PREFIX, COMPACTION_SUMMARY_PREFIX } from "../../core/compaction/build-context-messages.js";
import { parseShellResultText } from "../../core/user-shell.js";
import { AssistantMessageView } from "./components/assistant-message-view.js";
import { type NoticeLevel, NoticeView } from "./components/notice-view.js";
import { ToolCallView } from "./components/tool-call-view.js";
import { UserMessageView } from "./components/user-message-view.js";
import { countOf } from "./count-of.js";
import { type ShellRecord, showResult } from "./shell-input.js";

/** The text of a user message; images become a placeholder. */
export function userMessageText(message: AgentMessage): string {
  if (message.role !== "user" && message.role !== "custom") return "";
  const content = message.content;
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : `[image ${part.mimeType}]`)).join("\n");
}

/** Summary lines shown where the user is looking; the rest is in the session (and /export). */
const SUMMARY_PREVIEW_LINES = 12;

/**
 * The notice at the bottom after a compaction: the sizes before and after and the summary's
 * start (found in the compacted context's summary message). The earlier turns stay on screen.
 */
export function compactionNotice(messages: readonly AgentMessage[], before: number | undefined, after: number): string {
  const summaryMessage = messages.find((message) => userMessageText(message).startsWith(COMPACTION_SUMMARY_PREFIX));
  const summary = summaryMessage ? userMessageText(summaryMessage).slice(COMPACTION_SUMMARY_PREFIX.length).trim() : "";
  const lines = summary.split("\n");
  const shown = lines.slice(0, SUMMARY_PREVIEW_LINES).join("\n");
  const more =
    lines.length > SUMMARY_PREVIEW_LINES ? `\n… ${countOf(lines.length - SUMMARY_PREVIEW_LINES, "more line")}` : "";
  const sizes = `${before === undefined ? "?" : before.toLocaleString("en-US")} → ${after.toLocaleString("en-US")} tokens`;
  return `⟳ Older messages were compacted (${sizes}). Summary:\n${shown}${more}`;
}

/**
 * The conversation: one component per message, tool call and notice, appended in order. Streams
 * update only the newest components, so earlier ones keep their cached layout and the renderer
 * finds the first changed line near the bottom.
 */
export class ChatView extends Container {
  private readonly toolViews = new Map<string, ToolCallView>();
  private streaming: { view: AssistantMessageView; message: AssistantMessage } | undefined;
  private expanded = false;
  private showThinking = true;

  /**
   * Replaces everything with `messages` (start-up, resume, new session, tree jump) and the
   * `!!cmd` records of the same branch, each placed by when it ran.
   */
  setMessages(messages: readonly AgentMessage[], shellRecords: readonly ShellRecord[] = []): void {
    this.clear();
    this.toolViews.clear();
    this.streaming = undefined;
    const records = [...shellRecords].sort((a, b) => a.at - b.at);
    let next = 0;
    for (const message of messages) {
      for (; next < records.length && (records[next] as ShellRecord).at < message.timestamp; next++)
        this.addShellRecord(records[next] as ShellRecord);
      this.addMessage(message);
    }
    for (; next < records.length; next++) this.addShellRecord(records[next] as ShellRecord);
  }

  private addShellRecord(record: ShellRecord): void {
    showResult(this.addShellRun(record.result.command, "!!"), record.result);
  }

  /** Adds a finished message as history. */
  addMessage(message: AgentMessage): void {
    switch (message.role) {
      case "user": {
        const text = userMessageText(message);
        // Summaries reach the model as user messages; the user did not write them.
        if (text.startsWith(COMPACTION_SUMMARY_PREFIX))
          this.addNotice(`⟳ Older messages were compacted. Summary:\n${text.slice(COMPACTION_SUMMARY_PREFIX.length)}`);
        else if (text.startsWith(BRANCH_SUMMARY_PREFIX))
          this.addNotice(`↩ Back from another branch. Summary:\n${text.slice(BRANCH_SUMMARY_PREFIX.length)}`);
        else if (!this.addShellHistory(text)) this.addChild(new UserMessageView(text));
        return;
      }
      case "assistant": {
        const view = new AssistantMessageView(this.showThinking);
        view.setMessage(message);
        this.addChild(view);
        this.syncToolCalls(message);
        return;
      }
      case "toolResult":
        this.toolViews.get(message.toolCallId)?.setResult(message, message.isError);
        return;
      case "custom":
        if (message.display) this.addChild(new NoticeView(userMessageText(message)));
        return;
      default: {
        const never: never = message;
        throw new Error(`Unknown message ${JSON.stringify(never)}`);
      }
    }
  }

  addNotice(text: string, level: NoticeLevel = "info", trusted = false): void {
    this.addChild(new NoticeView(text, level, trusted));
  }

  /** Applies one session event. Returns whether anything visible changed. */
  handleEvent(event: SessionEvent): boolean {
    switch (event.type) {
      case "message_start":
        if (event.message.role === "assistant") {
          const view = new AssistantMessageView(this.showThinking);
          // Our own copy, updated in place per delta: linear in the answer, however long.
          const message = { ...event.message, content: [...event.message.content] };
          this.streaming = { view, message };
          view.setMessage(message);
          this.addChild(view);
          return true;
        }
        if (event.message.role === "toolResult") return false;
        this.addMessage(event.message);
        return true;
      case "message_update": {
        const streaming = this.streaming;
        if (!streaming) return false;
        applyAssistantMessageEvent(streaming.message, event.event);
        streaming.view.setMessage(streaming.message);
        this.syncToolCalls(streaming.message);
        return true;
      }
      case "message_end":
        if (event.message.role !== "assistant") return false;
        if (this.streaming) {
          this.streaming.view.setMessage(event.message);
          this.syncToolCalls(event.message);
        } else this.addMessage(event.message);
        this.streaming = undefined;
        return true;
      case "tool_execution_start":
        this.ensureToolView(event.toolCallId, event.toolName, event.args);
        return true;
      case "tool_execution_update":
        this.ensureToolView(event.toolCallId, event.toolName, {}).setPartialResult(event.partialResult);
        return true;
      case "tool_execution_end":
        this.ensureToolView(event.toolCallId, event.toolName, {}).setResult(event.result, event.isError);
        return true;
      default:
        return false;
    }
  }

  /**
   * A shell command the user runs (`!cmd`, `!!cmd`), drawn as a bash call titled `!` or `!!`;
   * the caller feeds it output and the result.
   */
  addShellRun(command: string, title: "!" | "!!"): ToolCallView {
    const view = new ToolCallView(`shell-${this.children.length}`, "bash", { command }, this.expanded);
    view.setTitle(title);
    this.toolViews.set(view.toolCallId, view);
    this.addChild(view);
    return view;
  }

  /** A `!cmd` result kept in the conversation, drawn again as the shell block it was. */
  private addShellHistory(text: string): boolean {
    const shell = parseShellResultText(text);
    if (!shell) return false;
    const exit = /^exit (\d+)$/.exec(shell.end);
    this.addShellRun(shell.command, "!").setResult(
      {
        content: [{ type: "text", text: shell.output }],
        details: {
          exitCode: exit ? Number(exit[1]) : null,
          aborted: shell.end === "cancelled",
          timedOut: shell.end === "timed out",
        },
      },
      shell.end === "not run",
    );
    return true;
  }

  /** Ctrl+O: every tool result shows in full, or collapsed again. */
  toggleExpanded(): boolean {
    this.expanded = !this.expanded;
    for (const view of this.toolViews.values()) view.setExpanded(this.expanded);
    return this.expanded;
  }

  /** Ctrl+T: thinking shown in full, or as one line each. */
  toggleThinking(): boolean {
    this.showThinking = !this.showThinking;
    for (const child of this.children)
      if (child instanceof AssistantMessageView) child.setShowThinking(this.showThinking);
    return this.showThinking;
  }

  private syncToolCalls(message: AssistantMessage): void {
    for (const part of message.content) {
      if (part.type !== "toolCall") continue;
      const view = this.toolViews.get(part.id) ?? this.ensureToolView(part.id, part.name, part.arguments);
      view.setArgs(part.arguments);
      view.setRawArguments(part.rawArguments);
    }
  }

  private ensureToolView(id: string, name: string, args: Record<string, unknown>): ToolCallView {
    let view = this.toolViews.get(id);
    if (!view) {
      view = new ToolCallView(id, name, args, this.expanded);
      this.toolViews.set(id, view);
      this.addChild(view);
    } else if (Object.keys(args).length > 0) view.setArgs(args);
    return view;
  }
}

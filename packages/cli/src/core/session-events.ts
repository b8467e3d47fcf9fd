import type { AgentEvent } from "@gyre/agent";
import type { GovernorEvent } from "./governor/governor.js";
import type { PermissionMode } from "./permissions/create-safety.js";
import type { SessionOpType } from "./session-ops.js";
import type { TodoItem } from "./tools/todo-tool.js";

/** Why a compaction ran: the context neared the window, the provider refused it, or the user asked. */
export type CompactionReason = "threshold" | "overflow" | "manual";

/** How loud a notice is; modes colour or filter by it. */
export type NoticeLevel = "info" | "warning" | "error";

/** Who raised a notice. */
export type NoticeSource = "session" | "extension" | "listener" | "mcp" | "hooks";

/**
 * A report for the user that is not part of the conversation (a failed session write, an
 * extension handler that threw). Core never writes to stderr: it emits this and each mode shows
 * it (print and JSON on stderr, JSON also as an event line, interactive in the chat, RPC as an event).
 */
export type NoticeEvent = { type: "notice"; level: NoticeLevel; source: NoticeSource; message: string };

/** A message waiting in the agent's queue, and who queued it (the user, an extension, the governor's warning). */
export type QueuedMessage = { text: string; source: "user" | "extension" | "governor" };

/** Harness events the session adds to the agent's (JSON mode and RPC carry them as they are). */
export type SessionEvent =
  | AgentEvent
  | { type: "compaction_start"; reason: CompactionReason }
  | { type: "compaction_end"; reason: CompactionReason; tokensBefore?: number; error?: string }
  | { type: "session_changed"; sessionId: string; sessionFile: string | undefined }
  | GovernorEvent
  /** One event of a subagent run by the `task` call `parentToolCallId` (`agent` is e.g. "explore#2"). */
  | { type: "subagent_event"; parentToolCallId: string; agent: string; event: AgentEvent }
  /** The todo list after the todo tool changed it. */
  | { type: "todo_update"; todos: TodoItem[] }
  | NoticeEvent
  /**
   * The session has nothing left to do: the last op's writes (entries, fsync, end checkpoint,
   * `agent_end` handlers) are done and no op waits. Once per busy period; `agent_end` stays the loop's.
   */
  | { type: "session_idle" }
  /** What waits, after every change: queued messages (delivery order) and ops waiting for their turn. */
  | {
      type: "queue_update";
      steering: QueuedMessage[];
      followUp: QueuedMessage[];
      waiting: { type: SessionOpType; label: string }[];
    }
  /** Plan mode was entered or left (`set_mode`). */
  | { type: "permission_mode_changed"; mode: PermissionMode }
  /** The last lines of a running `!cmd`'s output (the TUI's live tail). */
  | { type: "shell_output"; command: string; tail: string };

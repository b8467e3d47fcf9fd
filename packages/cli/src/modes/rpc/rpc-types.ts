/**
 * The RPC wire (DESIGN §5): JSONL commands on stdin; one `response` per command (with its `id`)
 * and every event on stdout. Plain JSON only.
 */
import type { ImageContent, ThinkingLevel } from "@gyre/ai";
import type { SessionEvent } from "../../core/session-events.js";
import type { ApprovalRequest } from "../../core/user-interface.js";

export type RpcCommand =
  | { id?: string; type: "prompt"; message: string; images?: ImageContent[]; streamingBehavior?: "steer" | "followUp" }
  | { id?: string; type: "steer"; message: string }
  | { id?: string; type: "follow_up"; message: string }
  | { id?: string; type: "abort" }
  | { id?: string; type: "get_state" }
  | { id?: string; type: "get_messages" }
  | { id?: string; type: "set_model"; provider: string; modelId: string }
  | { id?: string; type: "get_available_models" }
  | { id?: string; type: "set_thinking_level"; level: ThinkingLevel }
  /** The next (default) or previous model of `--models`, else of every model with a key, as Ctrl+P in the TUI. */
  | { id?: string; type: "cycle_model"; direction?: "forward" | "backward" }
  | { id?: string; type: "new_session" }
  | { id?: string; type: "compact"; customInstructions?: string }
  | { id?: string; type: "get_session_stats" }
  | { id?: string; type: "fork"; entryId?: string }
  | { id?: string; type: "switch_session"; sessionPath: string }
  | { id?: string; type: "get_last_assistant_text" }
  /** Back to before a user message (or to a checkpoint entry); `preview` only reports what would change. */
  | {
      id?: string;
      type: "rewind";
      entryId: string;
      restore?: "both" | "code" | "conversation";
      force?: boolean;
      preview?: boolean;
    }
  | { id?: string; type: "ui_response"; requestId: string; value?: unknown; cancelled?: boolean }
  /** DESIGN §8: answers the `approval_request` with this `id`; `reason` (with deny) reaches the model. */
  | { id: string; type: "approval_response"; decision: "allow" | "allow_always" | "deny"; reason?: string }
  /** "plan": read-only sandbox, write/edit withheld; "default": back to the run's sandbox mode. */
  | { id?: string; type: "set_permission_mode"; mode: "plan" | "default" };

export type RpcCommandType = RpcCommand["type"];

export type RpcResponse = {
  type: "response";
  id?: string;
  command: string;
  success: boolean;
  data?: unknown;
  error?: string;
};

/** A question from an extension to the client (confirm / select / input); answered with `ui_response`. */
export type RpcUiRequest = {
  type: "ui_request";
  requestId: string;
  method: "confirm" | "select" | "input";
  title: string;
  message?: string;
  options?: string[];
  placeholder?: string;
};

/** One-way notices from extensions: a message, and a keyed status-line text (`null` clears it). */
export type RpcUiNotice =
  | { type: "notify"; message: string; level: "info" | "warning" | "error" }
  | { type: "status"; key: string; text: string | null };

/** DESIGN §8: a tool call waiting for the client's decision; answer with `approval_response` and this `id`. */
export type RpcApprovalRequest = { type: "approval_request"; id: string } & ApprovalRequest;

/**
 * Every line the server writes that is not a response: the session's events (agent events,
 * compaction, notices, subagent events…), extension questions and notices, and approvals.
 */
export type RpcEvent = SessionEvent | RpcUiRequest | RpcUiNotice | RpcApprovalRequest;

export const rpcCommandTypes: readonly RpcCommandType[] = [
  "prompt",
  "steer",
  "follow_up",
  "abort",
  "get_state",
  "get_messages",
  "set_model",
  "get_available_models",
  "set_thinking_level",
  "cycle_model",
  "new_session",
  "compact",
  "get_session_stats",
  "fork",
  "switch_session",
  "get_last_assistant_text",
  "rewind",
  "ui_response",
  "approval_response",
  "set_permission_mode",
];

export type ParsedCommand =
  | { ok: true; value: RpcCommand }
  | { ok: false; error: string; id?: string; command?: string };

/** Parses one input line into a command, or an error naming what is wrong. Never throws. */
export function parseRpcCommand(line: string): ParsedCommand {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, error: `Invalid JSON: ${(error as Error).message}` };
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, error: "A command must be a JSON object with a string `type`." };
  }
  const record = value as Record<string, unknown>;
  const id = typeof record.id === "string" ? record.id : undefined;
  const type = record.type;
  if (typeof type !== "string") return { ok: false, error: "A command needs a string `type`.", ...(id ? { id } : {}) };
  if (!(rpcCommandTypes as readonly string[]).includes(type)) {
    return {
      ok: false,
      error: `Unknown command "${type}"; known commands: ${rpcCommandTypes.join(", ")}.`,
      command: type,
      ...(id ? { id } : {}),
    };
  }
  const needsString: Record<string, string[]> = {
    prompt: ["message"],
    steer: ["message"],
    follow_up: ["message"],
    set_model: ["provider", "modelId"],
    set_thinking_level: ["level"],
    switch_session: ["sessionPath"],
    ui_response: ["requestId"],
    rewind: ["entryId"],
    approval_response: ["id", "decision"],
    set_permission_mode: ["mode"],
  };
  for (const field of needsString[type] ?? []) {
    if (typeof record[field] !== "string") {
      return { ok: false, error: `"${type}" needs a string "${field}".`, command: type, ...(id ? { id } : {}) };
    }
  }
  return { ok: true, value: record as RpcCommand };
}

/**
 * The RPC wire (docs/design/layers.md): JSONL commands on stdin; one `response` per command (with its `id`)
 * and every event on stdout. Plain JSON only.
 */
import { THINKING_LEVELS } from "@gyre/ai";
import { type Static, type TProperties, Type } from "@sinclair/typebox";
import type { SchemaChecker } from "../../core/config/schema-check.js";
import type { SessionEvent } from "../../core/session-events.js";
import type { ApprovalRequest } from "../../core/user-interface.js";

const id = Type.Optional(Type.String());
const text = Type.String();
const imageSchema = Type.Object({ type: Type.Literal("image"), data: Type.String(), mimeType: Type.String() });
const command = <T extends string, P extends TProperties>(type: T, properties: P) =>
  Type.Object({ id, type: Type.Literal(type), ...properties });
const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((value) => Type.Literal(value)));
/** What an op does when it arrives while the session is busy (docs/design/session.md). */
const whileBusy = Type.Optional(literals(["steer", "follow_up", "queue", "reject"] as const));
const permissionMode = literals(["plan", "default"] as const);
const thinkingLevel = Type.Union(THINKING_LEVELS.map((level) => Type.Literal(level)));

/** One schema per command: the single source of the wire format and of `RpcCommand`. */
export const rpcCommandSchemas = {
  prompt: command("prompt", {
    message: text,
    images: Type.Optional(Type.Array(imageSchema)),
    /** The older spelling of `whileBusy` ("followUp" is `follow_up`). */
    streamingBehavior: Type.Optional(Type.Union([Type.Literal("steer"), Type.Literal("followUp")])),
    whileBusy,
  }),
  steer: command("steer", { message: text }),
  follow_up: command("follow_up", { message: text }),
  abort: command("abort", {}),
  get_state: command("get_state", {}),
  get_messages: command("get_messages", {}),
  set_model: command("set_model", { provider: text, modelId: text }),
  get_available_models: command("get_available_models", {}),
  set_thinking_level: command("set_thinking_level", { level: thinkingLevel }),
  /** The op's own name for `set_thinking_level`. */
  set_thinking: command("set_thinking", { level: thinkingLevel }),
  /** The next (default) or previous model of `--models`, else of every model with a key, as Ctrl+P in the TUI. */
  cycle_model: command("cycle_model", {
    direction: Type.Optional(Type.Union([Type.Literal("forward"), Type.Literal("backward")])),
  }),
  new_session: command("new_session", {}),
  compact: command("compact", { customInstructions: Type.Optional(text) }),
  get_session_stats: command("get_session_stats", {}),
  fork: command("fork", { entryId: Type.Optional(text) }),
  switch_session: command("switch_session", { sessionPath: text }),
  get_last_assistant_text: command("get_last_assistant_text", {}),
  /** Where `rewind` can go, newest first: undoing the last rewind, then each user message of the branch. */
  get_rewind_points: command("get_rewind_points", {}),
  /** Back to before a user message (or to a checkpoint entry); `preview` only reports what would change. */
  rewind: command("rewind", {
    entryId: text,
    restore: Type.Optional(Type.Union([Type.Literal("both"), Type.Literal("code"), Type.Literal("conversation")])),
    force: Type.Optional(Type.Boolean()),
    preview: Type.Optional(Type.Boolean()),
  }),
  ui_response: command("ui_response", {
    requestId: text,
    value: Type.Optional(Type.Unknown()),
    cancelled: Type.Optional(Type.Boolean()),
  }),
  /** docs/design/safety.md: answers the `approval_request` with this `id`; `reason` (with deny) reaches the model. */
  approval_response: Type.Object({
    id: Type.String(),
    type: Type.Literal("approval_response"),
    decision: Type.Union([Type.Literal("allow"), Type.Literal("allow_always"), Type.Literal("deny")]),
    reason: Type.Optional(text),
  }),
  /** "plan": read-only sandbox, write/edit withheld; "default": back to the run's sandbox mode. */
  set_permission_mode: command("set_permission_mode", { mode: permissionMode }),
  /** The op's own name for `set_permission_mode`; waits for a run in progress to end. */
  set_mode: command("set_mode", { mode: Type.Union([permissionMode, Type.Literal("toggle")]) }),
  /** The op's own name for `new_session`. */
  new: command("new", {}),
  /** Continues the session a file path or id prefix names (`switch_session`). */
  open: command("open", { session: text }),
  /** Continues from an entry of the tree (`/tree`); a user message comes back as `editText`. */
  navigate: command("navigate", { entryId: text }),
  /** `/name args`: an extension command, a prompt template or a skill; answered when done. */
  command: command("command", { name: text, args: Type.Optional(text), whileBusy }),
  /** `!cmd` (`addToContext`, default true) or `!!cmd`; waits for a run in progress; answered with its result. */
  shell: command("shell", { command: text, addToContext: Type.Optional(Type.Boolean()), whileBusy }),
  /** Settings, skills, templates, context files and extensions read again; `changes` lists what changed. */
  reload: command("reload", {}),
  /** docs/review.md: a read-only subagent reviews the uncommitted changes or the branch against `base`; answers with its findings. */
  review: command("review", {
    base: Type.Optional(Type.String({ minLength: 1 })),
    uncommitted: Type.Optional(Type.Boolean()),
    focus: Type.Optional(text),
  }),
  /** docs/memory.md: appends `text` to the project's (`project`) or the user's (`user`) AGENTS.md. */
  remember: command("remember", { text: Type.String({ minLength: 1 }), scope: literals(["project", "user"] as const) }),
  /** Ends the session (as EOF does) and answers once everything it started is closed. */
  shutdown: command("shutdown", {}),
};

type CommandSchemas = typeof rpcCommandSchemas;
/** A command as the client sends it, derived from `rpcCommandSchemas` (the union of every command). */
export type RpcCommand = { [K in keyof CommandSchemas]: Static<CommandSchemas[K]> }[keyof CommandSchemas];

export type RpcCommandType = RpcCommand["type"];

export type RpcResponse = {
  type: "response";
  id?: string;
  command: string;
  success: boolean;
  data?: unknown;
  error?: string;
  /** A command that failed its schema: every problem, e.g. `/message must be a string (got 5)`. */
  problems?: string[];
  /** Fields of the command gyre does not know (ignored), e.g. `/mesage`. */
  warnings?: string[];
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

/** docs/design/safety.md: a tool call waiting for the client's decision; answer with `approval_response` and this `id`. */
export type RpcApprovalRequest = { type: "approval_request"; id: string } & ApprovalRequest;

/**
 * Every line the server writes that is not a response: the session's events (agent events,
 * compaction, notices, subagent events…), extension questions and notices, and approvals.
 */
export type RpcEvent = SessionEvent | RpcUiRequest | RpcUiNotice | RpcApprovalRequest;

export const rpcCommandTypes = Object.keys(rpcCommandSchemas) as RpcCommandType[];

export type ParsedCommand =
  | { ok: true; value: RpcCommand; warnings: string[] }
  | { ok: false; error: string; id?: string; command?: string; problems?: string[]; warnings?: string[] };

/**
 * Parses one input line into a command checked against its schema (`check` from
 * `loadSchemaChecker`), or an error naming every problem. Never throws.
 */
export function parseRpcCommand(line: string, check: SchemaChecker): ParsedCommand {
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
  const id = typeof record.id === "string" ? { id: record.id } : {};
  const type = record.type;
  if (typeof type !== "string") return { ok: false, error: "A command needs a string `type`.", ...id };
  if (!Object.hasOwn(rpcCommandSchemas, type)) {
    const known = rpcCommandTypes.join(", ");
    return { ok: false, error: `Unknown command "${type}"; known commands: ${known}.`, command: type, ...id };
  }
  const report = check(rpcCommandSchemas[type as RpcCommandType], value);
  // Unknown fields are named even when the command fails: `mesage` next to a missing `message`.
  const warnings = report.unknownKeys.map((key) => `${key} is not a field of "${type}"; it is ignored.`);
  if (report.problems.length > 0) {
    const error = `Invalid "${type}" command: ${report.problems.join("; ")}.`;
    return {
      ok: false,
      error,
      problems: report.problems,
      command: type,
      ...id,
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  }
  return { ok: true, value: value as RpcCommand, warnings };
}

/**
 * The operations a front end submits to an `AgentSession` (docs/design/session.md): plain JSON,
 * so RPC, ACP and the SDK send the same thing. The session runs them one at a time; what
 * arrives while it is busy is handled by the op's `whileBusy`.
 */
import type { AgentMessage } from "@gyre/agent";
import type { ImageContent, Model, ThinkingLevel } from "@gyre/ai";
import type { RewindRestore, RewindResult } from "./checkpoints/rewind.js";
import type { SessionEndReason } from "./governor/governor.js";
import type { MemoryScope, RememberResult } from "./memory/remember.js";
import type { PermissionMode } from "./permissions/create-safety.js";
import type { ReviewResult } from "./review/run-review.js";
import type { ApprovalAnswer } from "./user-interface.js";
import type { UserShellResult } from "./user-shell.js";

/**
 * What an op does when it arrives while the session is busy. `steer`: its text joins the run at
 * the next turn boundary. `follow_up`: its text runs when the agent would otherwise stop.
 * `queue`: it runs once everything before it is done. `reject`: it fails with a `SessionBusyError`
 * while the agent works, but waits (as `queue`) once the run has given its answer and is only
 * being written away.
 */
export type WhileBusy = "steer" | "follow_up" | "queue" | "reject";

type Busy = { whileBusy?: WhileBusy };

export type SessionOp =
  /** A user message (templates, skills and `/extension-command` text are resolved). Default `reject`. */
  | ({ type: "prompt"; text: string; images?: ImageContent[] } & Busy)
  /** Joins the run in progress at its next turn boundary (or the next run). Never waits. */
  | { type: "steer"; text: string }
  /** Runs when the agent would otherwise stop. Never waits. */
  | { type: "follow_up"; text: string }
  /**
   * `/name args`: an extension command, a prompt template or a skill. An extension command runs at
   * once even while busy (its messages steer the run); the others follow `whileBusy` (default `reject`).
   */
  | ({ type: "command"; name: string; args?: string } & Busy)
  /** `!cmd` (`addToContext`, default true) or `!!cmd`; default `queue` (its output follows the run's answer). */
  | ({ type: "shell"; command: string; addToContext?: boolean } & Busy)
  /** Summarises the older part of the branch now. Default `reject`. */
  | ({ type: "compact"; focus?: string } & Busy)
  /** Back to before a user message (docs/design/rewind.md); `previewRewind` says what it would change. */
  | ({ type: "rewind"; entryId: string; restore?: RewindRestore; force?: boolean } & Busy)
  /** Plan mode on or off, or `toggle` (Shift+Tab). Default `queue`: the sandbox restarts between runs. */
  | ({ type: "set_mode"; mode: PermissionMode | "toggle" } & Busy)
  /** Default `reject`. `apiKey` replaces the key resolved for the model's provider. */
  | ({ type: "set_model"; model: Model; apiKey?: string } & Busy)
  | ({ type: "set_thinking"; level: ThinkingLevel } & Busy)
  /** A new, empty session (in memory when this one is). Default `reject`. */
  | ({ type: "new" } & Busy)
  /** Continues the session a file path or id prefix names. Default `reject`. */
  | ({ type: "open"; session: string } & Busy)
  /** Continues in a copy of the branch (from `entryId` when given). Default `reject`. */
  | ({ type: "fork"; entryId?: string } & Busy)
  /** Continues from `entryId` of the tree; a user message comes back as `editText`. Default `reject`. */
  | ({ type: "navigate"; entryId: string } & Busy)
  /** Settings, skills, templates, context files and extensions read again. Default `reject`. */
  | ({ type: "reload" } & Busy)
  /**
   * A read-only subagent reviews the uncommitted changes, or the branch since its merge base with
   * `base` (docs/review.md); nothing joins the conversation. Default `reject`.
   */
  | ({ type: "review"; base?: string; uncommitted?: boolean; focus?: string } & Busy)
  /** Appends `text` to the project's or the user's AGENTS.md, in the next run's context. Default `queue`. */
  | ({ type: "remember"; text: string; scope: MemoryScope } & Busy)
  /** Answers the approval request `id` (an RPC or ACP client's). Never waits. */
  | { type: "approval_response"; id: string; decision: ApprovalAnswer["decision"]; reason?: string }
  /** Stops the run, tool, shell command or compaction in progress; queued ops are dropped. Never waits. */
  | { type: "abort" }
  /** Ends the session: `dispose()`. Never waits. */
  | { type: "shutdown" };

export type SessionOpType = SessionOp["type"];

/** What a prompt resolves to: the messages the request added and why it ended (the agent's reasons, or `loop`). */
export type SessionRunResult = { messages: AgentMessage[]; reason: SessionEndReason };

/** How a text op was taken while busy: delivered into the run, instead of running on its own. */
export type Delivered = { delivered: "steer" | "follow_up" };

/** What `submit` resolves to, per op type. */
export type SessionOpResults = {
  prompt: SessionRunResult | Delivered;
  steer: Delivered;
  follow_up: Delivered;
  command: SessionRunResult | Delivered;
  shell: UserShellResult;
  compact: { compacted: boolean };
  rewind: RewindResult;
  set_mode: { mode: PermissionMode };
  set_model: { model: Model };
  set_thinking: { level: ThinkingLevel };
  new: { sessionId: string };
  open: { sessionId: string; sessionFile: string | undefined };
  fork: { sessionId: string; sessionFile: string | undefined };
  navigate: { editText?: string };
  reload: { changes: string[] };
  review: ReviewResult;
  remember: RememberResult;
  approval_response: { answered: true };
  abort: { aborted: true };
  shutdown: { disposed: true };
};

export type SessionOpResult<T extends SessionOpType> = SessionOpResults[T];

/** The `whileBusy` an op gets when it names none; `undefined`: the op never waits (handled at once). */
export function defaultWhileBusy(op: SessionOp): WhileBusy | undefined {
  switch (op.type) {
    case "steer":
    case "follow_up":
    case "approval_response":
    case "abort":
    case "shutdown":
      return undefined;
    case "shell":
    case "set_mode":
    case "remember":
      return op.whileBusy ?? "queue";
    default:
      return op.whileBusy ?? "reject";
  }
}

/** The op as the user would name it in a sentence: `/new`, `!ls`, `the prompt`. */
export function describeOp(op: SessionOp): string {
  switch (op.type) {
    case "prompt":
      return "the prompt";
    case "command":
      return `/${op.name}`;
    case "shell":
      return `!${op.command}`;
    case "set_mode":
      return "the permission mode change";
    case "set_model":
      return "the model switch";
    case "set_thinking":
      return "the thinking level switch";
    case "new":
      return "/new";
    case "open":
      return "/resume";
    case "navigate":
      return "/tree";
    default:
      return `/${op.type}`;
  }
}

/** An op refused because the agent works (`whileBusy: "reject"`); the sentence says what to do. */
export class SessionBusyError extends Error {
  constructor(
    readonly op: SessionOpType,
    what: string,
  ) {
    super(`${what} cannot run while the agent works; wait or press Esc to abort first.`);
    this.name = "SessionBusyError";
  }
}

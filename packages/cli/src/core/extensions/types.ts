/**
 * The public extension API of gyre: what an extension's default export receives, the events it
 * can subscribe to and what each handler may return. Extensions import these types from the
 * `gyre` package with `import type` (erased at load time, so no runtime dependency).
 *
 * ```ts
 * import type { ExtensionAPI } from "gyre";
 * export default function (api: ExtensionAPI) {
 *   api.on("tool_call", (event) => (event.toolName === "bash" ? { block: true, reason: "No shell here." } : undefined));
 * }
 * ```
 */
import type { AgentMessage, AgentTool, AgentToolResult } from "@gyre/agent";
import type { ImageContent, Model, TextContent } from "@gyre/ai";
import type { TSchema, Type } from "@sinclair/typebox";
import type { SessionEvent } from "../session-events.js";
import type { UserInterface } from "../user-interface.js";

export type { AgentMessage, AgentTool, AgentToolResult, SessionEvent, TSchema, UserInterface };

type MaybePromise<T> = T | Promise<T>;

/** The mode gyre runs in; extensions may adapt (e.g. nobody can answer a question in `print`). */
export type ExtensionMode = "interactive" | "print" | "json" | "rpc";

/**
 * Questions and notices for the user. Interactive mode answers in the terminal, RPC forwards
 * to the client (`ui_request` / `ui_response`), print and JSON modes fail closed: `confirm`
 * resolves `false`, `select` and `input` resolve `undefined`. Time spent waiting for an answer
 * does not count against the handler timeout.
 */
export type ExtensionUI = UserInterface & {
  /** A named status value (e.g. a counter); shown in the status line where the mode has one, else as a notice. */
  setStatus(key: string, text: string | undefined): void;
};

/** What every handler and command receives besides its event. */
export type ExtensionContext = {
  readonly ui: ExtensionUI;
  readonly cwd: string;
  readonly mode: ExtensionMode;
  /** The session's id; undefined while extensions load. */
  readonly sessionId: string | undefined;
  /** The current model; undefined while extensions load. */
  readonly model: Model | undefined;
  /** Fires when this handler ran past its timeout (its result is then ignored). */
  readonly signal: AbortSignal;
  /** Whether no run is in progress. */
  isIdle(): boolean;
  /** Aborts the current run (like Ctrl+C / the RPC `abort` command). */
  abort(): void;
};

/** Events only extensions see (besides every `SessionEvent`, delivered as it is). */
export type ExtensionOnlyEvents = {
  /** Once, after extensions loaded and the session opened. */
  session_start: { type: "session_start"; sessionId: string; sessionFile: string | undefined; cwd: string };
  /** Once, before gyre exits; persist what you need now. */
  session_shutdown: { type: "session_shutdown" };
  /** Before each user prompt starts a run (after templates and skills expanded). */
  before_agent_start: { type: "before_agent_start"; prompt: string; images: ImageContent[]; systemPrompt: string };
  /** Before each model call, with the messages about to be sent. */
  context: { type: "context"; messages: AgentMessage[] };
  /** Before a tool runs, with validated arguments. */
  tool_call: { type: "tool_call"; toolCallId: string; toolName: string; args: Record<string, unknown> };
  /** After a tool ran (or threw, as an error result). */
  tool_result: {
    type: "tool_result";
    toolCallId: string;
    toolName: string;
    args: Record<string, unknown>;
    content: AgentToolResult["content"];
    details: unknown;
    isError: boolean;
  };
};

/** Every event an extension can subscribe to, by name, with its payload. */
export type ExtensionEventMap = ExtensionOnlyEvents & {
  [K in SessionEvent["type"]]: Extract<SessionEvent, { type: K }>;
};

export type ExtensionEventName = keyof ExtensionEventMap;

/** What handlers of the hook events may return; `undefined` (or nothing) changes nothing. */
export type ExtensionResultMap = {
  /** Replaces the system prompt for this run only. */
  before_agent_start: { systemPrompt?: string };
  /** Replaces the messages sent to the model for this call (the session keeps its history). */
  context: { messages: AgentMessage[] };
  /**
   * `{ block: true, reason }` stops the call; the model sees `reason`. `{ args }` replaces the
   * arguments (validated again against the tool's schema; invalid ones block the call).
   */
  tool_call: { block: true; reason?: string } | { block?: false; args: Record<string, unknown> };
  /** Fields replaced in the result the model sees; absent fields keep the tool's value. */
  tool_result: { content?: (TextContent | ImageContent)[]; details?: unknown; isError?: boolean };
};

export type ExtensionResult<E extends ExtensionEventName> = E extends keyof ExtensionResultMap
  ? ExtensionResultMap[E]
  : never;

/** A handler: throwing, rejecting or running past the timeout is reported and skipped. */
export type ExtensionHandler<E extends ExtensionEventName> = (
  event: ExtensionEventMap[E],
  context: ExtensionContext,
  // biome-ignore lint/suspicious/noConfusingVoidType: most handlers return nothing, and `() => void` must fit
) => MaybePromise<ExtensionResult<E> | undefined | void>;

/** A slash command (`/name args`) available in every mode. */
export type ExtensionCommand = {
  description?: string;
  /** `args` is the text after the name, trimmed. */
  handler: (args: string, context: ExtensionContext) => MaybePromise<void>;
};

/** A CLI flag (`--name` or `--name value`), parsed once extensions have loaded. */
export type ExtensionFlag = {
  description?: string;
  type: "boolean" | "string";
  default?: boolean | string;
};

/** A message an extension adds: a string is a user message; an object is a custom message. */
export type ExtensionMessage =
  | string
  | {
      customType: string;
      /** What the model sees (as user text) and UIs show. */
      content: string | (TextContent | ImageContent)[];
      /** Whether UIs show it. Default true. */
      display?: boolean;
      /** For UIs and your own state; never sent to the model. */
      details?: unknown;
    };

/** A `custom` session entry written by `appendEntry`. */
export type ExtensionEntry = { customType: string; data: unknown; timestamp: string };

/** The object an extension's default export receives. */
export type ExtensionAPI = {
  /** Absolute path of this extension's file. */
  readonly path: string;
  readonly cwd: string;
  readonly mode: ExtensionMode;
  /** TypeBox's `Type`, for tool parameter schemas without a runtime import. */
  readonly Type: typeof Type;
  readonly ui: ExtensionUI;
  /** Subscribes to an event; handlers run in load order. */
  on<E extends ExtensionEventName>(event: E, handler: ExtensionHandler<E>): void;
  /** Adds a tool (same contract as the built-ins); one with a built-in's name replaces it. */
  registerTool<TParameters extends TSchema, TDetails>(tool: AgentTool<TParameters, TDetails>): void;
  /** Adds `/name` (letters, digits, `-`, `_`, `:`). */
  registerCommand(name: string, command: ExtensionCommand): void;
  /** Adds `--name` to the CLI; read it with `getFlag` once handlers run. */
  registerFlag(name: string, flag: ExtensionFlag): void;
  /** A flag's value (its default when not given); undefined while extensions load. */
  getFlag(name: string): boolean | string | undefined;
  /** Appends a section to the system prompt of every run. */
  addSystemPrompt(text: string): void;
  /** Keeps state in the session file (a `custom` entry, never sent to the model). Not while loading. */
  appendEntry(customType: string, data?: unknown): void;
  /** This extension's state: the `custom` entries of the current branch with this type, oldest first. */
  getEntries(customType: string): ExtensionEntry[];
  /**
   * Adds a message. While a run is in progress it is delivered at the next turn boundary
   * (`steer`, default) or when the run would stop (`followUp`); when idle it starts a run.
   * Resolves once delivered (when idle: once that run ended). Not while loading.
   */
  sendMessage(message: ExtensionMessage, options?: { deliverAs?: "steer" | "followUp" }): Promise<void>;
};

/** The default export of an extension module. */
export type ExtensionFactory = (api: ExtensionAPI) => MaybePromise<void>;

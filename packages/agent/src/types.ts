/**
 * The spine of @gyre/agent: the tool contract, agent messages, loop options and events (docs/design/messages-and-events.md#agent-events).
 */
import type {
  AssistantMessage,
  AssistantMessageEvent,
  ImageContent,
  Message,
  Model,
  StreamFunction,
  StreamOptions,
  TextContent,
  Tool,
  ToolCall,
  ToolResultMessage,
} from "@gyre/ai";
import type { Static, TSchema } from "@sinclair/typebox";

/** What a tool returns: `content` goes to the model, `details` to UIs and logs. */
export type AgentToolResult<TDetails = unknown> = {
  content: (TextContent | ImageContent)[];
  details?: TDetails;
  /** When every result of a batch says `terminate`, the run stops after the batch. */
  terminate?: boolean;
};

/** What a running tool receives besides its arguments. */
export type ToolExecutionContext<TDetails = unknown> = {
  toolCallId: string;
  /** Fires when the user aborts the run; tools must stop promptly and clean up. */
  signal: AbortSignal;
  /** Streams a partial result to UIs (`tool_execution_update`). */
  onUpdate?: (partialResult: AgentToolResult<TDetails>) => void;
};

/**
 * A tool: a plain object. Only `name`, `description` and `parameters` reach the model.
 * `execute` throws to report failure; the loop turns the throw into an error result whose text
 * is the error message, so write messages for the model ("Use offset=2001 to continue"); a
 * `details` property on the thrown error becomes the result's `details`.
 */
export type AgentTool<TParameters extends TSchema = TSchema, TDetails = unknown> = Tool & {
  parameters: TParameters;
  label: string;
  /** "sequential" makes the whole batch this call is in run in order. Default "parallel". */
  executionMode?: "parallel" | "sequential";
  /**
   * Declares that the tool changes no files and nothing outside the run (it only reads). Hosts may
   * skip what they do before side effects for it (a workspace checkpoint). Default: not read-only.
   */
  readOnly?: boolean;
  /** A compatibility shim run on raw arguments before validation (e.g. accept an old argument shape). */
  prepareArguments?: (args: Record<string, unknown>) => Record<string, unknown>;
  execute: (args: Static<TParameters>, context: ToolExecutionContext<TDetails>) => Promise<AgentToolResult<TDetails>>;
};

// biome-ignore lint/suspicious/noExplicitAny: a list of tools holds tools with different parameter and detail types
export type AnyAgentTool = AgentTool<any, any>;

/** A message for UIs and extensions that the model does not see unless `convertToLlm` maps it. */
export type CustomMessage = {
  role: "custom";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  /** Whether UIs show it. */
  display: boolean;
  details?: unknown;
  timestamp: number;
};

export type AgentMessage = Message | CustomMessage;

export type BudgetName = "turns" | "tokens" | "cost" | "time";

/** Limits for one run. Each one reached ends the run with a `budget_reached` event. */
export type AgentBudgets = {
  /** Model calls per run. */
  maxTurns?: number;
  /** Sum of `usage.totalTokens` over the run's assistant messages. */
  maxTotalTokens?: number;
  /** Sum of `usage.cost.total` (USD) over the run's assistant messages. */
  maxCostUsd?: number;
  /** Wall-clock time of the run; reaching it aborts the model call or tools in flight. */
  maxWallTimeMs?: number;
};

/** Why a run ended (`agent_end.reason`). */
export type AgentEndReason =
  | "stop" /* the model requested no tool and no follow-up was queued */
  | "error" /* the model call failed */
  | "aborted" /* the run's signal fired */
  | "budget" /* a budget was reached (see the `budget_reached` event) */
  | "terminate" /* every result of the last batch said `terminate` */
  | "stop_after_turn"; /* `shouldStopAfterTurn` said so */

/**
 * Events of one agent run (docs/design/messages-and-events.md#agent-events) plus harness events. Plain JSON.
 * `message_update.event` is one provider delta; the provider's `start` and terminal events are
 * not repeated there: `message_start` and `message_end` carry those messages. Every tool call
 * gets one `tool_execution_start`/`tool_execution_end` pair, also calls that were never run.
 */
export type AgentEvent =
  | { type: "agent_start" }
  | { type: "agent_end"; messages: AgentMessage[]; reason?: AgentEndReason }
  | { type: "turn_start" }
  | { type: "turn_end"; message: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: "message_start"; message: AgentMessage }
  | { type: "message_update"; event: AssistantMessageEvent }
  | { type: "message_end"; message: AgentMessage }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: Record<string, unknown> }
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; partialResult: AgentToolResult }
  | { type: "tool_execution_end"; toolCallId: string; toolName: string; result: AgentToolResult; isError: boolean }
  | { type: "retry"; attempt: number; maxRetries: number; delayMs: number; reason: string }
  | { type: "budget_reached"; budget: BudgetName; limit: number; used: number; reason: string };

/** What the model sees of the agent: system prompt, history and tools. */
export type AgentContext = {
  systemPrompt?: string;
  messages: AgentMessage[];
  tools?: AnyAgentTool[];
};

/** Input of `beforeToolCall`: the call after validation, with coerced arguments. */
export type BeforeToolCallInput = {
  toolCall: ToolCall;
  /** Validated, coerced arguments the tool will receive. */
  args: Record<string, unknown>;
  assistantMessage: AssistantMessage;
  /** The run's live context; treat as read-only. */
  context: AgentContext;
};

/**
 * `{ block: true, reason }` stops the call; `reason` becomes the error result's text. `args`
 * replaces the arguments the tool receives; they are validated (and coerced) against the tool's
 * schema again, and invalid ones give an error result instead of running the tool. Hooks never
 * change the input's objects in place.
 */
export type BeforeToolCallResult = { block?: boolean; reason?: string; args?: Record<string, unknown> };

/** Input of `afterToolCall`: the call and what the tool returned (or threw, as an error result). */
export type AfterToolCallInput = BeforeToolCallInput & { result: AgentToolResult; isError: boolean };

/** Fields to replace in the result; absent fields keep the tool's value. */
export type AfterToolCallResult = {
  content?: AgentToolResult["content"];
  details?: unknown;
  isError?: boolean;
  terminate?: boolean;
};

/** What `shouldStopAfterTurn` sees once a turn (model call + tools) is complete. */
export type TurnEndContext = {
  /** 1-based number of the turn in this run. */
  turn: number;
  message: AssistantMessage;
  toolResults: ToolResultMessage[];
  /** The run's live history; treat as read-only. */
  messages: readonly AgentMessage[];
};

type MaybePromise<T> = T | Promise<T>;

/** The behaviour knobs of the loop, shared by `runAgentLoop` and the `Agent` class. */
export type AgentLoopConfig = {
  /**
   * Read before every turn: the tools that turn offers and runs, replacing `context.tools` (a list
   * that changes mid-run, e.g. an MCP server's `tools/list_changed`). Default: `context.tools`.
   */
  getTools?: () => AnyAgentTool[];
  /** Replaces @gyre/ai `stream` (tests, proxies). Must keep its never-throw contract. */
  streamFn?: StreamFunction;
  /** Passed to every model call (temperature, maxTokens, thinking, retry, sessionId…). */
  streamOptions?: Omit<StreamOptions, "signal" | "apiKey" | "onRetry">;
  /** Resolved before every model call, so short-lived keys can refresh. Falls back to `streamOptions`' none. */
  getApiKey?: (provider: string) => MaybePromise<string | undefined>;
  /**
   * Runs on the history before every model call (pruning, compaction, injected context). Return
   * the array it was given, unchanged, to send the history as it is: the loop then reuses its
   * converted copy (see `convertMessageToLlm`). Never change that array in place.
   */
  transformContext?: (messages: AgentMessage[], signal: AbortSignal) => MaybePromise<AgentMessage[]>;
  /** Maps agent messages to model messages before every call. Default: drops `custom` messages. */
  convertToLlm?: (messages: AgentMessage[]) => MaybePromise<Message[]>;
  /**
   * The per-message form of `convertToLlm` (undefined drops the message). The loop converts each
   * message once, as it is appended, instead of the whole history before every call. Ignored when
   * `convertToLlm` is given.
   */
  convertMessageToLlm?: (message: AgentMessage) => Message | undefined;
  beforeToolCall?: (input: BeforeToolCallInput, signal: AbortSignal) => MaybePromise<BeforeToolCallResult | undefined>;
  /**
   * Asked when the model calls a tool this turn does not offer: a sentence saying why it is
   * unavailable (a mode withholds it, say), which replaces "does not exist" in the error result.
   * `undefined`: the tool does not exist.
   */
  describeUnavailableTool?: (name: string) => string | undefined;
  afterToolCall?: (input: AfterToolCallInput, signal: AbortSignal) => MaybePromise<AfterToolCallResult | undefined>;
  /** Asked after each turn; `signal` is the run's, aborted when the run is. */
  shouldStopAfterTurn?: (context: TurnEndContext, signal: AbortSignal) => MaybePromise<boolean>;
  /** Polled after each tool batch and before the next model call. */
  getSteeringMessages?: () => MaybePromise<AgentMessage[]>;
  /** Polled when the agent would stop; messages returned start a new turn. */
  getFollowUpMessages?: () => MaybePromise<AgentMessage[]>;
  /** "sequential" runs every batch in order. Default "parallel". */
  toolExecution?: "parallel" | "sequential";
  /**
   * A tool call whose arguments are larger than this (JSON bytes) is not run: its arguments are
   * replaced by a small `gyreDroppedArguments` placeholder before `message_end`, so they are never
   * stored or re-sent, and the call gets an error result. Default 1 MiB.
   */
  maxToolArgumentBytes?: number;
  /**
   * Stops a model that repeats itself: when the end of the streamed text (or thinking) is one
   * passage repeated at least `minRepeats` times over at least `minChars` characters, the
   * request is cancelled and the message ends as an error saying so (repetition-guard.ts).
   * Default `{ minChars: 8000, minRepeats: 8 }`; `false` turns it off.
   */
  repetitionGuard?: false | { minChars?: number; minRepeats?: number };
  budgets?: AgentBudgets;
};

/** Input of one run of the loop. */
export type AgentLoopOptions = AgentLoopConfig & {
  model: Model;
  /** The history so far; the loop copies `messages` once and never mutates the caller's array. */
  context: AgentContext;
  /** Messages that start this run (usually one user message). Empty: continue from `context`. */
  prompts?: AgentMessage[];
  /** One signal for the whole run: cancels the model call and running tools. */
  signal?: AbortSignal;
};

/** What a run returns besides its events. */
export type AgentRunResult = { messages: AgentMessage[]; reason: AgentEndReason };

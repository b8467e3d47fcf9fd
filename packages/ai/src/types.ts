/**
 * The spine of @gyre/ai: message, content, model and stream-event types (docs/design/messages-and-events.md#messages, docs/design/messages-and-events.md#provider-stream-events).
 * Everything here is plain JSON: no class instances, no Error objects, no functions
 * (except in options that never cross a process boundary).
 */

export type TextContent = {
  type: "text";
  text: string;
  /** Opaque provider data that must be echoed back with this text (e.g. Gemini thought signatures). */
  signature?: string;
  /** The sources a server-side web search gave for this text, when the provider cites them. */
  citations?: Citation[];
};

/**
 * A source the model cited for (part of) a text block: Anthropic `web_search_result_location`,
 * Responses `url_citation` annotations, Gemini grounding supports.
 */
export type Citation = {
  url: string;
  title?: string;
  /** The quoted passage of the source, when the provider sends it. */
  citedText?: string;
  /** Character offsets of the cited span in the text block (or message), when the provider gives them. */
  startIndex?: number;
  endIndex?: number;
  /** Opaque provider data that must be echoed back unchanged (Anthropic `encrypted_index`). */
  signature?: string;
};

/**
 * A tool the provider ran on its own servers during the response (web search), as the model
 * asked for it. Nothing for gyre to execute: its result comes in the same message. `raw` is the
 * provider's own item, sent back verbatim to the API that made it (Anthropic and Responses
 * reject a history that drops or alters it); every other API gets it as text.
 */
export type ServerToolCall = {
  type: "serverToolCall";
  id: string;
  /** `web_search` on every API; other server tools keep the provider's name. */
  name: string;
  /** What the model asked: `{ query }`, or `{ queries }` when the provider lists several. */
  input: Record<string, unknown>;
  raw?: Record<string, unknown>;
};

/** One page a server-side web search returned. */
export type WebSearchResult = { url: string; title?: string; pageAge?: string };

/** The result of a `ServerToolCall` (same `id` in `toolCallId`), as the provider reported it. */
export type ServerToolResult = {
  type: "serverToolResult";
  toolCallId: string;
  name: string;
  results: WebSearchResult[];
  /** Set when the search failed (e.g. Anthropic `max_uses_exceeded`). */
  errorMessage?: string;
  raw?: Record<string, unknown>;
};

/** A block of an assistant message. */
export type AssistantContent = TextContent | ThinkingContent | ToolCall | ServerToolCall | ServerToolResult;
export type ThinkingContent = { type: "thinking"; thinking: string; signature?: string; redacted?: boolean };
export type ImageContent = { type: "image"; data: string /* base64 */; mimeType: string };
/**
 * A tool call as the model issued it. `arguments` is always an object. When the model's
 * argument text never became valid JSON, `arguments` is `{}` and `rawArguments` keeps the text
 * so the agent layer can reject the call with a clear error.
 */
export type ToolCall = {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  rawArguments?: string;
  /** Opaque provider data that must be echoed back (e.g. Gemini thought signatures). */
  signature?: string;
};

export type Usage = {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  /** USD. */
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
};

export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

export type UserMessage = {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp: number;
};

export type AssistantMessage = {
  role: "assistant";
  content: AssistantContent[];
  api: string;
  provider: string;
  model: string;
  usage: Usage;
  stopReason: StopReason;
  rawStopReason?: string;
  errorMessage?: string;
  /** Provider's response id, when it sends one. */
  responseId?: string;
  timestamp: number;
};

export type ToolResultMessage = {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  /** For UIs and logs; never sent to the model. */
  details?: unknown;
  isError: boolean;
  timestamp: number;
};

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** The wire protocols gyre speaks. Other strings may be registered at run time. */
export type KnownApi = "openai-completions" | "openai-responses" | "anthropic-messages" | "google-gemini" | "faux";
export type Api = KnownApi | (string & {});

/** Every thinking level, weakest first: the one list the CLI, settings and sessions check against. */
export const THINKING_LEVELS = ["off", "low", "medium", "high"] as const;

export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/** Whether `value` is one of `THINKING_LEVELS`. */
export function isThinkingLevel(value: unknown): value is ThinkingLevel {
  return typeof value === "string" && (THINKING_LEVELS as readonly string[]).includes(value);
}

/** Per-million-token prices in USD. */
export type ModelCost = { input: number; output: number; cacheRead: number; cacheWrite: number };

/**
 * Switches for servers that speak an API with differences. Every field is optional; the
 * provider picks defaults from the base URL when a field is absent.
 */
export type ModelCompat = {
  /** openai-completions: send `max_completion_tokens` instead of `max_tokens`. */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
  /** openai-completions: ask for usage in the last chunk (`stream_options.include_usage`). */
  supportsUsageInStreaming?: boolean;
  /** openai-completions: accepts the `developer` role for the system prompt. */
  supportsDeveloperRole?: boolean;
  /** openai-completions: accepts `reasoning_effort`. */
  supportsReasoningEffort?: boolean;
  /** Accepts `strict: true` function schemas (constrained sampling of tool arguments). */
  supportsStrictTools?: boolean;
  /** Tool-call ids must match this pattern and length (e.g. Mistral: 9 alphanumerics). */
  toolCallIdFormat?: "any" | "alphanumeric9";
};

export type Model = {
  id: string;
  name: string;
  api: Api;
  provider: string;
  baseUrl: string;
  /** Whether the model can produce thinking/reasoning content. */
  reasoning: boolean;
  input: ("text" | "image")[];
  contextWindow: number;
  maxTokens: number;
  cost: ModelCost;
  headers?: Record<string, string>;
  compat?: ModelCompat;
};

/** A tool as the model sees it: only name, description and the JSON Schema of its arguments. */
export type Tool = {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** Ask for schema-enforced arguments where the API supports it (see `ModelCompat.supportsStrictTools`). */
  strict?: boolean;
};

export type Context = {
  systemPrompt?: string;
  messages: Message[];
  tools?: Tool[];
};

export type RetryOptions = {
  /** Attempts after the first one. Default 3. */
  maxRetries?: number;
  /** First backoff delay in ms, doubled each attempt, with jitter. Default 1000. */
  baseDelayMs?: number;
  /** A server-requested wait (`retry-after`) longer than this fails instead. Default 60000. */
  maxDelayMs?: number;
};

export type RetryInfo = { attempt: number; maxRetries: number; delayMs: number; reason: string };

export type StreamOptions = {
  apiKey?: string;
  signal?: AbortSignal;
  temperature?: number;
  maxTokens?: number;
  thinking?: ThinkingLevel;
  headers?: Record<string, string>;
  retry?: RetryOptions;
  /** A stream that sends nothing for this long ends as an error. Default 120000 ms. */
  idleTimeoutMs?: number;
  /** Called before each retry wait, so UIs can show it. Must not throw. */
  onRetry?: (info: RetryInfo) => void;
  /** Prompt-cache / session key for providers that support one. */
  sessionId?: string;
  /**
   * Lets the model search the web with the provider's own server-side tool: Anthropic
   * `web_search_20250305`, Responses `web_search`, Gemini `googleSearch`. Ignored by Chat
   * Completions and faux, which have none. Results and citations come back as content.
   */
  webSearch?: boolean | WebSearchOptions;
  /**
   * Anthropic: how many times a turn the server paused (`pause_turn`, long server-tool work) is
   * sent back so the server goes on with it, in the same answer. Default 4; 0 keeps the paused
   * message as the answer.
   */
  pauseTurnContinuations?: number;
  /**
   * Once one tool call's streamed argument text passes this many UTF-8 bytes, the provider stops
   * keeping (and stops emitting `toolcall_delta` for) it: the finished call's arguments are the
   * `gyreDroppedArguments` placeholder (see `createDroppedArguments`), so a 50 MB call is never
   * held whole. Unset: no limit.
   */
  maxToolArgumentBytes?: number;
};

export type WebSearchOptions = {
  /** Searches allowed per response (Anthropic `max_uses`). */
  maxUses?: number;
  /** Only these domains (Anthropic `allowed_domains`, Responses `filters.allowed_domains`). */
  allowedDomains?: string[];
};

/** Provider stream events (docs/design/messages-and-events.md#provider-stream-events). Deltas carry only the delta; see `applyAssistantMessageEvent`. */
export type AssistantMessageEvent =
  | { type: "start"; message: AssistantMessage }
  | { type: "text_start"; contentIndex: number }
  | { type: "text_delta"; contentIndex: number; delta: string }
  | { type: "text_end"; contentIndex: number; content: string; citations?: Citation[] }
  | { type: "thinking_start"; contentIndex: number }
  | { type: "thinking_delta"; contentIndex: number; delta: string }
  | { type: "thinking_end"; contentIndex: number; content: string; signature?: string; redacted?: boolean }
  | { type: "toolcall_start"; contentIndex: number; id: string; name: string }
  | { type: "toolcall_delta"; contentIndex: number; delta: string }
  | { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall }
  | { type: "server_tool_call_start"; contentIndex: number; id: string; name: string }
  | { type: "server_tool_call_end"; contentIndex: number; content: ServerToolCall }
  | { type: "server_tool_result_start"; contentIndex: number; toolCallId: string; name: string }
  | { type: "server_tool_result_end"; contentIndex: number; content: ServerToolResult }
  | { type: "done"; reason: "stop" | "length" | "toolUse"; message: AssistantMessage }
  | { type: "error"; reason: "error" | "aborted"; message: AssistantMessage };

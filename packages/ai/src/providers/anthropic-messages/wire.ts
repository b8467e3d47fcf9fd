/**
 * The subset of Anthropic's Messages API wire format that gyre sends and reads
 * (https://docs.anthropic.com/en/api/messages-streaming). Stream payloads are typed loosely on
 * purpose: servers add fields and block types over time, and unknown ones must pass through.
 */

export type AnthropicCacheControl = { type: "ephemeral" };

/** A web search citation as sent back; `encrypted_index` must be the one Anthropic gave. */
export type AnthropicWebSearchCitation = {
  type: "web_search_result_location";
  url: string;
  title: string | null;
  cited_text: string;
  encrypted_index: string;
};

export type AnthropicTextBlock = {
  type: "text";
  text: string;
  citations?: AnthropicWebSearchCitation[];
  cache_control?: AnthropicCacheControl;
};
/** A server tool block (`server_tool_use`, `web_search_tool_result`…) echoed back verbatim. */
export type AnthropicServerToolBlock = { type: string; [field: string]: unknown };
export type AnthropicImageBlock = {
  type: "image";
  source: { type: "base64"; media_type: string; data: string };
  cache_control?: AnthropicCacheControl;
};
export type AnthropicThinkingBlock = { type: "thinking"; thinking: string; signature: string };
export type AnthropicRedactedThinkingBlock = { type: "redacted_thinking"; data: string };
export type AnthropicToolUseBlock = {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
  cache_control?: AnthropicCacheControl;
};
export type AnthropicToolResultBlock = {
  type: "tool_result";
  tool_use_id: string;
  content?: (AnthropicTextBlock | AnthropicImageBlock)[];
  is_error?: boolean;
  cache_control?: AnthropicCacheControl;
};

export type AnthropicUserBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicToolResultBlock;
export type AnthropicAssistantBlock =
  | AnthropicTextBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock
  | AnthropicToolUseBlock
  | AnthropicServerToolBlock;

export type AnthropicMessageParam =
  | { role: "user"; content: AnthropicUserBlock[] }
  | { role: "assistant"; content: AnthropicAssistantBlock[] };

export type AnthropicTool = {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  cache_control?: AnthropicCacheControl;
};

/** The server-side web search tool (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool). */
export type AnthropicWebSearchTool = {
  type: "web_search_20250305";
  name: "web_search";
  max_uses?: number;
  allowed_domains?: string[];
};

export type AnthropicRequest = {
  model: string;
  max_tokens: number;
  messages: AnthropicMessageParam[];
  system?: AnthropicTextBlock[];
  tools?: (AnthropicTool | AnthropicWebSearchTool)[];
  temperature?: number;
  thinking?: { type: "enabled"; budget_tokens: number };
  stream: true;
};

/** Usage as Anthropic reports it; every field may be missing or null in a given event. */
export type AnthropicUsage = {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
};

/** A content block as announced by `content_block_start`. Unknown `type`s are ignored. */
export type AnthropicStreamBlock = {
  type: string;
  text?: string;
  thinking?: string;
  signature?: string;
  data?: string;
  id?: string;
  name?: string;
  input?: unknown;
  /** Server tool result blocks: the call they answer and their content (results or an error). */
  tool_use_id?: string;
  content?: unknown;
};

export type AnthropicStreamDelta = {
  type: string;
  text?: string;
  thinking?: string;
  signature?: string;
  partial_json?: string;
  /** `citations_delta`: one citation of the text block. */
  citation?: {
    type?: string;
    url?: string;
    title?: string | null;
    cited_text?: string;
    encrypted_index?: string;
  };
};

/** One `data:` payload of the stream, discriminated by `type`; unlisted types are ignored. */
export type AnthropicStreamEvent =
  | { type: "message_start"; message?: { id?: string; usage?: AnthropicUsage } }
  | { type: "content_block_start"; index: number; content_block?: AnthropicStreamBlock }
  | { type: "content_block_delta"; index: number; delta?: AnthropicStreamDelta }
  | { type: "content_block_stop"; index: number }
  | { type: "message_delta"; delta?: { stop_reason?: string | null }; usage?: AnthropicUsage }
  | { type: "message_stop" }
  | { type: "ping" }
  | { type: "error"; error?: { type?: string; message?: string } };

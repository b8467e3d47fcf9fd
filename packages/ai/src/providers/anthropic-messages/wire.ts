/**
 * The subset of Anthropic's Messages API wire format that gyre sends and reads
 * (https://docs.anthropic.com/en/api/messages-streaming). Stream payloads are typed loosely on
 * purpose: servers add fields and block types over time, and unknown ones must pass through.
 */

export type AnthropicCacheControl = { type: "ephemeral" };

export type AnthropicTextBlock = { type: "text"; text: string; cache_control?: AnthropicCacheControl };
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
  | AnthropicToolUseBlock;

export type AnthropicMessageParam =
  | { role: "user"; content: AnthropicUserBlock[] }
  | { role: "assistant"; content: AnthropicAssistantBlock[] };

export type AnthropicTool = {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  cache_control?: AnthropicCacheControl;
};

export type AnthropicRequest = {
  model: string;
  max_tokens: number;
  messages: AnthropicMessageParam[];
  system?: AnthropicTextBlock[];
  tools?: AnthropicTool[];
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
};

export type AnthropicStreamDelta = {
  type: string;
  text?: string;
  thinking?: string;
  signature?: string;
  partial_json?: string;
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

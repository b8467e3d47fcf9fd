/**
 * Wire shapes of the OpenAI Chat Completions API (`POST /chat/completions`, `stream: true`) as
 * far as gyre reads or writes them. Every received field is optional: OpenAI-compatible servers
 * omit, null or rename fields freely (see the recorded fixtures).
 */
import type { ModelCompat } from "../../types.js";

/** `ModelCompat` with every switch decided, plus derived ones the type does not expose. */
export type ResolvedCompat = Required<ModelCompat> & {
  /** Send same-model thinking back as `reasoning_content` (servers that stream it). */
  sendsReasoningContent: boolean;
};

export type ChatContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

export type ChatToolCall = { id: string; type: "function"; function: { name: string; arguments: string } };

export type ChatMessage =
  | { role: "system" | "developer"; content: string }
  | { role: "user"; content: string | ChatContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[]; reasoning_content?: string }
  | { role: "tool"; tool_call_id: string; content: string };

export type ChatTool = {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown>; strict?: boolean };
};

export type ChatRequest = {
  model: string;
  messages: ChatMessage[];
  stream: true;
  stream_options?: { include_usage: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  reasoning_effort?: "low" | "medium" | "high";
  tools?: ChatTool[];
  prompt_cache_key?: string;
};

export type ChatToolCallDelta = {
  index?: number;
  id?: string | null;
  type?: string;
  function?: { name?: string | null; arguments?: string | null };
};

export type ChatReasoningDetail = {
  type?: string;
  text?: string | null;
  summary?: string | null;
  signature?: string | null;
  data?: string | null;
};

/** A typed part of `delta.content` (Mistral's reasoning models); `thinking` nests its own text parts. */
export type ChatDeltaContentPart = {
  type?: string;
  text?: string | null;
  thinking?: string | { type?: string; text?: string | null }[] | null;
};

export type ChatDelta = {
  role?: string;
  /** A string, or (Mistral) an array of typed parts. */
  content?: string | ChatDeltaContentPart[] | null;
  refusal?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  reasoning_details?: ChatReasoningDetail[] | null;
  tool_calls?: ChatToolCallDelta[] | null;
};

export type ChatUsage = {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  /** DeepSeek's name for cached prompt tokens. */
  prompt_cache_hit_tokens?: number;
};

export type ChatError = { message?: string; code?: string | number; type?: string };

export type ChatChunk = {
  id?: string;
  choices?: { index?: number; delta?: ChatDelta | null; finish_reason?: string | null }[];
  usage?: ChatUsage | null;
  /** OpenRouter and others report a failure inside an otherwise normal 200 stream. */
  error?: ChatError | string | null;
};

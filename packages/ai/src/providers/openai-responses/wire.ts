/**
 * Wire shapes of the OpenAI Responses API (`POST /responses`, `stream: true`) as far as gyre reads
 * or writes them. Received fields are optional: compatible servers (Azure, OpenRouter, LM Studio,
 * DeepSeek, xAI, Copilot) differ in what they fill in.
 */

export type ResponsesInputContent =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string; detail: "auto" };

export type ResponsesSummaryPart = { type: "summary_text"; text: string };

export type ResponsesReasoningItem = {
  type: "reasoning";
  id: string;
  summary: ResponsesSummaryPart[];
  encrypted_content?: string;
};

export type ResponsesInputItem =
  | { role: "user"; content: ResponsesInputContent[] }
  | { role: "assistant"; content: string }
  | ResponsesReasoningItem
  | { type: "function_call"; id?: string; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string }
  | ResponsesWebSearchCallItem;

/** A `web_search_call` item as the API sent it, echoed back verbatim. */
export type ResponsesWebSearchCallItem = { type: "web_search_call"; id: string; [field: string]: unknown };

/** `url_citation` annotation of output text. */
export type ResponsesAnnotation = {
  type?: string;
  url?: string;
  title?: string;
  start_index?: number;
  end_index?: number;
};

export type ResponsesTool =
  | {
      type: "function";
      name: string;
      description: string;
      parameters: Record<string, unknown>;
      strict: boolean;
    }
  | { type: "web_search"; filters?: { allowed_domains: string[] } };

export type ResponsesRequest = {
  model: string;
  input: ResponsesInputItem[];
  stream: true;
  store: false;
  instructions?: string;
  max_output_tokens?: number;
  temperature?: number;
  reasoning?: { effort: "low" | "medium" | "high"; summary: "auto" };
  include?: ("reasoning.encrypted_content" | "web_search_call.action.sources")[];
  tools?: ResponsesTool[];
  prompt_cache_key?: string;
};

export type ResponsesOutputItem = {
  type?: string;
  id?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  summary?: { type?: string; text?: string }[];
  content?: { type?: string; text?: string; refusal?: string; annotations?: ResponsesAnnotation[] }[];
  encrypted_content?: string | null;
  status?: string;
  /** `web_search_call`: what was searched and, with `include: ["web_search_call.action.sources"]`, the pages. */
  action?: {
    type?: string;
    query?: string;
    queries?: string[];
    url?: string;
    sources?: { url?: string; title?: string }[];
  };
};

export type ResponsesUsage = {
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  input_tokens_details?: { cached_tokens?: number | null } | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
};

export type ResponsesErrorBody = { message?: string; code?: string | null; type?: string };

export type ResponsesResponse = {
  id?: string;
  status?: string;
  usage?: ResponsesUsage | null;
  error?: ResponsesErrorBody | null;
  incomplete_details?: { reason?: string } | null;
};

/** One streamed event (`data:` payload); `type` names it. */
export type ResponsesEvent = {
  type?: string;
  output_index?: number;
  summary_index?: number;
  item?: ResponsesOutputItem;
  delta?: string;
  arguments?: string;
  response?: ResponsesResponse;
  /** `response.output_text.annotation.added`. */
  annotation?: ResponsesAnnotation;
  /** `error` events: nested (`{error: {...}}`) on OpenAI, flat (`message`, `code`) in the spec. */
  error?: ResponsesErrorBody;
  message?: string;
  code?: string | null;
};

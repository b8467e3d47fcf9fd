import { GyreError } from "../../errors.js";
import type { AssistantMessageEventStream, StreamFunction } from "../../event-stream.js";
import { parseJsonData, readSse } from "../../transport/sse.js";
import type { AssistantMessage, Context, Model, ServerToolResult, StreamOptions, Usage } from "../../types.js";
import { throwIfRetryableStreamError } from "../in-stream-error.js";
import type { MessageBuilder } from "../message-builder.js";
import { postProviderRequest } from "../post-provider-request.js";
import { runProvider } from "../run-provider.js";
import { buildAnthropicRequest } from "./build-request.js";
import { mapAnthropicStopReason } from "./map-stop-reason.js";
import type { AnthropicStreamBlock, AnthropicStreamDelta, AnthropicStreamEvent, AnthropicUsage } from "./wire.js";

const defaultBaseUrl = "https://api.anthropic.com";

/**
 * The `anthropic-messages` stream function: POSTs `${baseUrl}/v1/messages` with `stream: true`
 * and turns the SSE reply into gyre events. Returns at once and never throws or rejects; HTTP
 * errors, a mid-stream `error` event, a stream without `message_stop`, idle timeouts and aborts
 * all end the stream with `error`, keeping whatever content arrived.
 *
 * Server-side tool blocks become content kept with their wire item: `server_tool_use` a
 * `serverToolCall`, `web_search_tool_result` (and other `*_tool_result` blocks) a
 * `serverToolResult`; `citations_delta` becomes citations on the text block. Other block types
 * (`compaction`…) are skipped.
 *
 * A turn the server paused (`pause_turn`: its server tools ran long) is sent back as the last
 * message, so the server resumes it, up to `pauseTurnContinuations` times (default 4): the
 * continuations' blocks extend the same message and their usage adds up; the last paused message
 * is the answer when the bound is reached.
 */
export const streamAnthropicMessages: StreamFunction = (
  model: Model,
  context: Context,
  options: StreamOptions = {},
): AssistantMessageEventStream =>
  runProvider(model, options, async (builder) => {
    const headers = createHeaders(model, options);
    const continuations = options.pauseTurnContinuations ?? defaultPauseTurnContinuations;
    let request = context;
    for (let round = 0; ; round++) {
      const response = await postProviderRequest(builder, options, {
        url: `${(model.baseUrl || defaultBaseUrl).replace(/\/+$/, "")}/v1/messages`,
        headers,
        body: buildAnthropicRequest(model, request, options),
        providerLabel: "Anthropic",
      });
      const reader = new AnthropicStreamReader(builder, round < continuations);
      const sse = readSse(response, { signal: options.signal, idleTimeoutMs: options.idleTimeoutMs });
      for await (const event of sse) {
        if (!event.data.trim()) continue;
        reader.handle(parseJsonData(event.data, "Anthropic") as AnthropicStreamEvent);
        if (builder.isTerminated || reader.paused) break;
      }
      if (!reader.paused) return;
      // The server paused a long server-tool turn: sent back as it is, the turn goes on from there.
      request = { ...context, messages: [...context.messages, pausedTurn(builder.message)] };
    }
  });

/** Resends of a paused turn (`pause_turn`) before the paused message is kept as the answer. */
const defaultPauseTurnContinuations = 4;

/** The message so far, as the last message of the next request (its open search call resent as is). */
function pausedTurn(message: AssistantMessage): AssistantMessage {
  return { ...structuredClone(message), stopReason: "stop", rawStopReason: "pause_turn" };
}

function createHeaders(model: Model, options: StreamOptions): Record<string, string> {
  const headers: Record<string, string> = { "anthropic-version": "2023-06-01", accept: "text/event-stream" };
  // Only the caller's key: a library must not pick up secrets from the process on its own.
  const apiKey = options.apiKey;
  if (apiKey) headers["x-api-key"] = apiKey;
  Object.assign(headers, model.headers, options.headers);
  const hasAuth = Object.keys(headers).some((name) => /^(x-api-key|authorization)$/i.test(name));
  if (!hasAuth) {
    throw new GyreError(
      "missing_api_key",
      "No API key for Anthropic: pass apiKey (for example from ANTHROPIC_API_KEY) or give an x-api-key/authorization header.",
    );
  }
  return headers;
}

/** The HTTP status Anthropic gives each retryable error type when it is sent before the stream. */
const inStreamErrorStatus: Record<string, number> = { overloaded_error: 529, rate_limit_error: 429, api_error: 500 };

type BlockKind = "text" | "thinking" | "toolCall" | "serverToolCall" | "ignored";

/** Applies stream events to a `MessageBuilder`. Synchronous: one event in, builder calls out. */
class AnthropicStreamReader {
  private readonly kinds = new Map<number, BlockKind>();
  /** Tool input announced whole in `content_block_start`, used when no delta follows. */
  private readonly startInputs = new Map<number, string>();
  private readonly deltaSeen = new Set<number>();
  private rawStopReason: string | undefined;
  /** Usage of the rounds before this one: a continued turn's usage is the sum of its requests. */
  private readonly before: Usage;
  /** Set when the response ended with `pause_turn` and the caller is to send the turn back. */
  paused = false;

  constructor(
    private readonly builder: MessageBuilder,
    private readonly mayContinue = false,
  ) {
    this.before = structuredClone(builder.message.usage);
  }

  handle(event: AnthropicStreamEvent): void {
    switch (event.type) {
      case "message_start":
        if (event.message?.id) this.builder.message.responseId = event.message.id;
        this.applyUsage(event.message?.usage);
        return;
      case "content_block_start":
        this.startBlock(event.index, event.content_block);
        return;
      case "content_block_delta":
        this.applyDelta(event.index, event.delta);
        return;
      case "content_block_stop":
        this.stopBlock(event.index);
        return;
      case "message_delta":
        if (event.delta?.stop_reason) this.rawStopReason = event.delta.stop_reason;
        this.applyUsage(event.usage);
        return;
      case "message_stop":
        this.finish();
        return;
      case "ping":
        return;
      case "error": {
        const kind = event.error?.type ? ` (${event.error.type})` : "";
        const message = `Anthropic stream error${kind}: ${event.error?.message ?? "no details"}`;
        // Thrown with the status the same error has before the headers, so it is retried alike.
        throwIfRetryableStreamError(message, { status: inStreamErrorStatus[event.error?.type ?? ""], text: kind });
        this.builder.fail(message);
        return;
      }
      default: {
        // Event types added by Anthropic after this code was written are skipped, not fatal.
        const ignored: never = event;
        void ignored;
      }
    }
  }

  private startBlock(index: number, block: AnthropicStreamBlock | undefined): void {
    const key = String(index);
    switch (block?.type) {
      case "text":
        this.kinds.set(index, "text");
        this.builder.text(key, block.text ?? "");
        return;
      case "thinking":
        this.kinds.set(index, "thinking");
        this.builder.thinking(key, block.thinking ?? "");
        if (block.signature) this.builder.signature(key, block.signature);
        return;
      case "redacted_thinking":
        // The opaque `data` must go back verbatim next turn; it lives in the signature field.
        this.kinds.set(index, "thinking");
        this.builder.thinking(key, "", { redacted: true });
        this.builder.signature(key, block.data ?? "");
        return;
      case "tool_use":
        this.kinds.set(index, "toolCall");
        this.builder.toolCallStart(key, block.id ?? "", block.name ?? "");
        this.keepStartInput(index, block.input);
        return;
      case "server_tool_use": {
        this.kinds.set(index, "serverToolCall");
        const id = block.id ?? "";
        const name = block.name ?? "";
        // The item as the API takes it back; response-only fields (`caller`) stay out.
        this.builder.serverToolCallStart(key, id, name, (input) => ({ type: "server_tool_use", id, name, input }));
        this.keepStartInput(index, block.input);
        return;
      }
      default:
        this.kinds.set(index, "ignored");
        if (block?.type.endsWith("_tool_result") && typeof block.tool_use_id === "string") {
          this.builder.serverToolResult(convertServerToolResult(block, block.tool_use_id));
        }
    }
  }

  private keepStartInput(index: number, input: unknown): void {
    if (input && typeof input === "object" && Object.keys(input).length > 0) {
      this.startInputs.set(index, JSON.stringify(input));
    }
  }

  private applyDelta(index: number, delta: AnthropicStreamDelta | undefined): void {
    const kind = this.kinds.get(index);
    const key = String(index);
    if (!delta || kind === undefined || kind === "ignored") return;
    if (delta.type === "text_delta" && kind === "text") this.builder.text(key, delta.text ?? "");
    else if (delta.type === "thinking_delta" && kind === "thinking") this.builder.thinking(key, delta.thinking ?? "");
    else if (delta.type === "signature_delta" && kind === "thinking") {
      this.builder.signature(key, delta.signature ?? "", true);
    } else if (delta.type === "input_json_delta" && kind === "toolCall") {
      this.deltaSeen.add(index);
      this.builder.toolCallDelta(key, delta.partial_json ?? "");
    } else if (delta.type === "input_json_delta" && kind === "serverToolCall") {
      this.deltaSeen.add(index);
      this.builder.serverToolCallInput(key, delta.partial_json ?? "");
    } else if (delta.type === "citations_delta" && kind === "text" && delta.citation?.url) {
      const { url, title, cited_text: citedText, encrypted_index: signature } = delta.citation;
      this.builder.citation(key, {
        url,
        ...(title ? { title } : {}),
        ...(citedText !== undefined ? { citedText } : {}),
        ...(signature !== undefined ? { signature } : {}),
      });
    }
  }

  private stopBlock(index: number): void {
    const key = String(index);
    const startInput = this.startInputs.get(index);
    if (startInput !== undefined && !this.deltaSeen.has(index)) {
      if (this.kinds.get(index) === "serverToolCall") this.builder.serverToolCallInput(key, startInput);
      else this.builder.toolCallDelta(key, startInput);
    }
    this.builder.end(key);
  }

  /** This response's usage (`message_delta` over `message_start`, field by field) on top of the earlier rounds'. */
  private applyUsage(wire: AnthropicUsage | undefined): void {
    if (!wire) return;
    const usage = this.builder.message.usage;
    if (typeof wire.input_tokens === "number") usage.input = this.before.input + wire.input_tokens;
    if (typeof wire.output_tokens === "number") usage.output = this.before.output + wire.output_tokens;
    if (typeof wire.cache_read_input_tokens === "number")
      usage.cacheRead = this.before.cacheRead + wire.cache_read_input_tokens;
    if (typeof wire.cache_creation_input_tokens === "number")
      usage.cacheWrite = this.before.cacheWrite + wire.cache_creation_input_tokens;
  }

  private finish(): void {
    const raw = this.rawStopReason;
    if (raw === "pause_turn" && this.mayContinue) {
      this.builder.endAll();
      this.paused = true;
      return;
    }
    const stopReason = mapAnthropicStopReason(raw);
    if (stopReason === "error") {
      this.builder.message.errorMessage =
        raw === "refusal"
          ? "The model refused to answer (stop_reason: refusal)."
          : `Anthropic stopped with stop_reason ${raw}.`;
    }
    this.builder.finish(stopReason, raw);
  }
}

/**
 * A `*_tool_result` block as a `serverToolResult`, the block itself kept verbatim as `raw`:
 * its `encrypted_content` must go back unaltered. Web search results list their pages; an
 * error object (`web_search_tool_result_error`) gives its `error_code`.
 */
function convertServerToolResult(block: AnthropicStreamBlock, toolCallId: string): ServerToolResult {
  const result: ServerToolResult = {
    type: "serverToolResult",
    toolCallId,
    name: block.type.replace(/_tool_result$/, ""),
    results: [],
    raw: block as Record<string, unknown>,
  };
  const content = block.content;
  if (Array.isArray(content)) {
    for (const item of content as Record<string, unknown>[]) {
      if (typeof item?.url !== "string") continue;
      result.results.push({
        url: item.url,
        ...(typeof item.title === "string" ? { title: item.title } : {}),
        ...(typeof item.page_age === "string" ? { pageAge: item.page_age } : {}),
      });
    }
  } else if (content && typeof content === "object") {
    const code = (content as Record<string, unknown>).error_code;
    result.errorMessage = typeof code === "string" ? code : "the search failed";
  }
  return result;
}

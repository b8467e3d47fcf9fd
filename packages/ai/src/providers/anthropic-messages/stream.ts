import { GyreError } from "../../errors.js";
import type { AssistantMessageEventStream } from "../../event-stream.js";
import { parseJsonData, readSse } from "../../transport/sse.js";
import type { Context, Model, StreamFunction, StreamOptions, Usage } from "../../types.js";
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
 * Server-side tool blocks (`server_tool_use`, `web_search_tool_result`, `compaction`…) and
 * citations are not part of gyre's message model and are skipped.
 */
export const streamAnthropicMessages: StreamFunction = (
  model: Model,
  context: Context,
  options: StreamOptions = {},
): AssistantMessageEventStream =>
  runProvider(model, options, async (builder) => {
    const response = await postProviderRequest(builder, options, {
      url: `${(model.baseUrl || defaultBaseUrl).replace(/\/+$/, "")}/v1/messages`,
      headers: createHeaders(model, options),
      body: buildAnthropicRequest(model, context, options),
      providerLabel: "Anthropic",
    });
    const reader = new AnthropicStreamReader(builder);
    const sse = readSse(response, { signal: options.signal, idleTimeoutMs: options.idleTimeoutMs });
    for await (const event of sse) {
      if (!event.data.trim()) continue;
      reader.handle(parseJsonData(event.data, "Anthropic") as AnthropicStreamEvent);
      if (builder.isTerminated) return;
    }
  });

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

type BlockKind = "text" | "thinking" | "toolCall" | "ignored";

/** Applies stream events to a `MessageBuilder`. Synchronous: one event in, builder calls out. */
class AnthropicStreamReader {
  private readonly kinds = new Map<number, BlockKind>();
  /** Tool input announced whole in `content_block_start`, used when no delta follows. */
  private readonly startInputs = new Map<number, string>();
  private readonly deltaSeen = new Set<number>();
  private rawStopReason: string | undefined;

  constructor(private readonly builder: MessageBuilder) {}

  handle(event: AnthropicStreamEvent): void {
    switch (event.type) {
      case "message_start":
        if (event.message?.id) this.builder.message.responseId = event.message.id;
        applyUsage(this.builder.message.usage, event.message?.usage);
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
        applyUsage(this.builder.message.usage, event.usage);
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
        if (block.input && typeof block.input === "object" && Object.keys(block.input).length > 0) {
          this.startInputs.set(index, JSON.stringify(block.input));
        }
        return;
      default:
        this.kinds.set(index, "ignored");
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
    }
  }

  private stopBlock(index: number): void {
    const key = String(index);
    const startInput = this.startInputs.get(index);
    if (startInput !== undefined && !this.deltaSeen.has(index)) this.builder.toolCallDelta(key, startInput);
    this.builder.end(key);
  }

  private finish(): void {
    const raw = this.rawStopReason;
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

/** Overrides `usage` field by field with the values present in `wire` (message_delta over message_start). */
function applyUsage(usage: Usage, wire: AnthropicUsage | undefined): void {
  if (!wire) return;
  if (typeof wire.input_tokens === "number") usage.input = wire.input_tokens;
  if (typeof wire.output_tokens === "number") usage.output = wire.output_tokens;
  if (typeof wire.cache_read_input_tokens === "number") usage.cacheRead = wire.cache_read_input_tokens;
  if (typeof wire.cache_creation_input_tokens === "number") usage.cacheWrite = wire.cache_creation_input_tokens;
}

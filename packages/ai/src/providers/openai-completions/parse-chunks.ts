import type { Usage } from "../../types.js";
import { retryableStreamErrorStatus } from "../in-stream-error.js";
import type { MessageBuilder } from "../message-builder.js";
import { createStrictNullRemover } from "../openai-shared.js";
import { mapCompletionsStopReason } from "./map-stop-reason.js";
import type { ChatChunk, ChatDelta, ChatDeltaContentPart, ChatError, ChatToolCallDelta, ChatUsage } from "./wire.js";

/**
 * Folds Chat Completions chunks into a `MessageBuilder`. Written against what servers really
 * send (see the fixtures README): chunks without choices, tool-call deltas without `index` or
 * with an empty `name`, arguments sent whole, repeated finish chunks, reasoning under three
 * different keys, usage in a trailing chunk, errors inside a 200 stream.
 */
export class CompletionsChunkParser {
  /** Set when the server reported an error in-stream; the caller ends the stream with it. */
  errorMessage: string | undefined;
  /** For an in-stream error that would be retryable as an HTTP status (rate limit, overload), that status. */
  errorStatus: number | undefined;
  private finishReason: string | undefined;
  private current: { kind: "text" | "thinking"; key: string } | undefined;
  private blockCount = 0;
  private toolCount = 0;
  private lastToolKey: string | undefined;
  private readonly indexToKey = new Map<number, string>();
  private readonly idToKey = new Map<string, string>();
  private readonly keyIds = new Map<string, string>();
  /** The argument text each call has received, to tell a new call from a continuation. */
  private readonly argumentText = new Map<string, string>();
  /** Calls whose text passed the builder's limit (no longer kept): whether it last ended in "}". */
  private readonly droppedTextEnds = new Map<string, boolean>();

  /**
   * @param strictSchemas original schemas of the tools sent with `strict: true`, by name; their
   * arguments get the `null`s that strict mode forces on optional properties removed.
   */
  constructor(
    private readonly builder: MessageBuilder,
    strictSchemas: Map<string, Record<string, unknown>> = new Map(),
  ) {
    const finalize = createStrictNullRemover(strictSchemas);
    if (finalize) builder.finalizeToolCall = finalize;
  }

  /** Applies one parsed `data:` payload. */
  onChunk(chunk: ChatChunk): void {
    const message = this.builder.message;
    // Azure's first chunk carries an empty id; only a real id names the response.
    if (typeof chunk.id === "string" && chunk.id !== "" && message.responseId === undefined) {
      message.responseId = chunk.id;
    }
    for (const choice of chunk.choices ?? []) {
      if (choice.delta) this.onDelta(choice.delta);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    if (chunk.usage) applyCompletionsUsage(chunk.usage, message.usage);
    if (chunk.error) this.recordError(chunk.error);
  }

  /** Records an `event: error` record's payload. */
  onErrorEvent(payload: unknown): void {
    const error = (payload as { error?: ChatError | string } | null)?.error ?? payload;
    this.recordError(error as ChatError | string);
  }

  private recordError(error: ChatError | string): void {
    this.errorMessage = formatChatError(error);
    const text = typeof error === "string" ? error : `${error.code ?? ""} ${error.type ?? ""} ${error.message ?? ""}`;
    this.errorStatus = retryableStreamErrorStatus({ text });
  }

  /**
   * Ends the message. `sawDone` tells whether `data: [DONE]` arrived. A stream that never sent a
   * finish reason is complete only with `[DONE]` and some content (Snowflake never sends one);
   * without either it was cut off, and ends as an error.
   */
  complete(sawDone: boolean): void {
    const builder = this.builder;
    this.builder.endAll();
    if (this.errorMessage !== undefined) {
      builder.message.errorMessage = this.errorMessage;
      builder.finish("error", this.finishReason);
      return;
    }
    const hasToolCalls = this.toolCount > 0;
    if (this.finishReason === undefined) {
      if (!sawDone) return; // the caller reports the missing terminal event
      if (builder.message.content.length === 0) {
        builder.fail("The provider ended the stream without a finish reason or any content.");
        return;
      }
      builder.finish(hasToolCalls ? "toolUse" : "stop");
      return;
    }
    const stopReason = mapCompletionsStopReason(this.finishReason, hasToolCalls);
    if (stopReason === "error") {
      builder.message.errorMessage =
        this.finishReason === "model_context_window_exceeded"
          ? `The prompt is longer than the model's context window (finish_reason "${this.finishReason}").`
          : `The provider stopped the response (finish_reason "${this.finishReason}").`;
    }
    builder.finish(stopReason, this.finishReason);
  }

  private onDelta(delta: ChatDelta): void {
    const reasoning = pickReasoning(delta);
    if (reasoning.text) this.append("thinking", reasoning.text);
    if (reasoning.signature && this.current?.kind === "thinking") {
      this.builder.signature(this.current.key, reasoning.signature);
    }
    if (typeof delta.content === "string") {
      if (delta.content) this.append("text", delta.content);
    } else if (Array.isArray(delta.content)) {
      for (const part of delta.content) this.appendPart(part);
    }
    if (delta.refusal) this.append("text", delta.refusal);
    const toolCalls = delta.tool_calls;
    if (!Array.isArray(toolCalls) || toolCalls.length === 0) return;
    if (this.current) {
      this.builder.end(this.current.key);
      this.current = undefined;
    }
    toolCalls.forEach((call, position) => {
      const key = this.resolveToolKey(call, position, toolCalls.length);
      this.builder.toolCallStart(key, call.id ?? "", call.function?.name ?? "");
      const args = call.function?.arguments;
      if (args) {
        this.builder.toolCallDelta(key, args);
        this.rememberArguments(key, args);
      }
    });
  }

  /** One typed content part: text, or thinking whose text may itself be a list of text parts. */
  private appendPart(part: ChatDeltaContentPart): void {
    if (part.type === "text" && typeof part.text === "string" && part.text) this.append("text", part.text);
    if (part.type !== "thinking") return;
    const thinking = part.thinking;
    const text = Array.isArray(thinking)
      ? thinking.map((inner) => (typeof inner?.text === "string" ? inner.text : "")).join("")
      : (thinking ?? "");
    if (text) this.append("thinking", text);
  }

  private append(kind: "text" | "thinking", delta: string): void {
    if (this.current?.kind !== kind) {
      if (this.current) this.builder.end(this.current.key);
      this.current = { kind, key: `${kind}:${this.blockCount++}` };
    }
    if (kind === "text") this.builder.text(this.current.key, delta);
    else this.builder.thinking(this.current.key, delta);
  }

  /**
   * The block key of a tool-call delta: by `id` when known, else by `index` (which may start at
   * 1 and may be reused with a new id), else by position for several index-less calls in one
   * delta, else the call being streamed (an index-less continuation, as Mistral sends). A delta
   * that names a function when the call it would join already holds a complete JSON object is a
   * new call, whatever its id and index say: servers repeat `call_0`, send `id: ""` and no index.
   */
  private resolveToolKey(call: ChatToolCallDelta, position: number, count: number): string {
    const key = this.findToolKey(call, position, count);
    this.lastToolKey = key;
    return key;
  }

  private findToolKey(call: ChatToolCallDelta, position: number, count: number): string {
    const id = call.id || undefined;
    let index = typeof call.index === "number" ? call.index : undefined;
    if (index === undefined && !id && count > 1) index = position;
    const joins = (key: string | undefined): key is string => key !== undefined && !this.startsNewCall(key, call);
    const known = id ? this.idToKey.get(id) : undefined;
    // A known id on another index is a second call reusing the id.
    const sameIndex = index === undefined || this.indexToKey.get(index) === known;
    if (joins(known) && sameIndex) return known;
    if (index !== undefined) {
      const existing = this.indexToKey.get(index);
      if (joins(existing) && (!id || !this.keyIds.has(existing))) {
        if (id) this.rememberId(existing, id);
        return existing;
      }
    } else if (!id && joins(this.lastToolKey)) {
      return this.lastToolKey;
    }
    const key = `tool:${this.toolCount++}`;
    if (index !== undefined) this.indexToKey.set(index, key);
    if (id) this.rememberId(key, id);
    return key;
  }

  /** Keeps the call's text for `startsNewCall`, but not past the builder's limit: a huge call is not held twice. */
  private rememberArguments(key: string, args: string): void {
    const limit = this.builder.maxToolArgumentBytes;
    if (this.droppedTextEnds.has(key) || (limit !== undefined && (this.argumentText.get(key)?.length ?? 0) > limit)) {
      this.argumentText.delete(key);
      this.droppedTextEnds.set(
        key,
        args.trimEnd().endsWith("}") || (args.trim() === "" && !!this.droppedTextEnds.get(key)),
      );
      return;
    }
    this.argumentText.set(key, (this.argumentText.get(key) ?? "") + args);
  }

  private startsNewCall(key: string, call: ChatToolCallDelta): boolean {
    if (!call.function?.name) return false;
    // Text too large to keep: its last piece closing an object is the best sign left.
    const droppedEnd = this.droppedTextEnds.get(key);
    if (droppedEnd !== undefined) return droppedEnd;
    const text = this.argumentText.get(key)?.trim() ?? "";
    // Cheap test first: only text ending in "}" can be a whole object.
    if (!text.endsWith("}")) return false;
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  }

  private rememberId(key: string, id: string): void {
    this.idToKey.set(id, key);
    this.keyIds.set(key, id);
  }
}

/** Reasoning text of a delta from exactly one of its mirrors, plus any thinking signature. */
function pickReasoning(delta: ChatDelta): { text: string; signature?: string } {
  let signature: string | undefined;
  let detailText = "";
  for (const detail of delta.reasoning_details ?? []) {
    if (detail.signature) signature = detail.signature;
    if (detail.type === "reasoning.text" && detail.text) detailText += detail.text;
    else if (detail.type === "reasoning.summary" && detail.summary) detailText += detail.summary;
  }
  // OpenRouter and the Vercel gateway mirror `reasoning` into `reasoning_details`: use one only.
  const text = delta.reasoning_content || delta.reasoning || detailText;
  return signature ? { text, signature } : { text };
}

/**
 * Maps Chat Completions usage into gyre's: input excludes cached prompt tokens (OpenAI
 * `prompt_tokens_details.cached_tokens`, DeepSeek `prompt_cache_hit_tokens`), output includes
 * reasoning. Where `total_tokens` exceeds prompt + completion (xAI counts reasoning outside
 * `completion_tokens`), output is the total minus the prompt.
 */
export function applyCompletionsUsage(raw: ChatUsage, usage: Usage): void {
  const prompt = raw.prompt_tokens ?? 0;
  const completion = raw.completion_tokens ?? 0;
  const cached = raw.prompt_tokens_details?.cached_tokens ?? raw.prompt_cache_hit_tokens ?? 0;
  const total = raw.total_tokens ?? prompt + completion;
  usage.cacheRead = cached;
  usage.input = Math.max(0, prompt - cached);
  usage.output = total > prompt + completion ? total - prompt : completion;
  usage.totalTokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

function formatChatError(error: ChatError | string): string {
  if (typeof error === "string") return error;
  const message = error.message || JSON.stringify(error);
  return error.code !== undefined && error.code !== null ? `${message} (${error.code})` : message;
}

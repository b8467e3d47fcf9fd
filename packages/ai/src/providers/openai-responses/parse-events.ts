import type { Usage } from "../../types.js";
import { throwIfRetryableStreamError } from "../in-stream-error.js";
import type { MessageBuilder } from "../message-builder.js";
import { createStrictNullRemover } from "../openai-shared.js";
import { mapResponsesStopReason } from "./map-stop-reason.js";
import type {
  ResponsesAnnotation,
  ResponsesErrorBody,
  ResponsesEvent,
  ResponsesOutputItem,
  ResponsesResponse,
  ResponsesUsage,
} from "./wire.js";

type ItemState = { type: string; key: string; streamed: boolean; summaryIndex: number; cited?: boolean };

/**
 * Folds Responses API stream events into a `MessageBuilder`. Items are correlated by
 * `output_index`, never by id (GitHub Copilot rotates item ids between events of one item);
 * a finished `web_search_call` item becomes a server tool call (the item kept verbatim) and its
 * result (the pages, when `action.sources` was asked for); `url_citation` annotations become
 * citations on the text; events of other item types are ignored; the stream is
 * complete only with `response.completed`/`incomplete`/`failed` or an `error` event.
 */
export class ResponsesEventParser {
  /** Whether a terminal event arrived and the message is finished. */
  done = false;
  private readonly items = new Map<number, ItemState>();
  private toolCount = 0;

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

  /** Applies one event. `eventName` is the SSE `event:` field, used when the payload has no `type`. */
  onEvent(event: ResponsesEvent, eventName?: string): void {
    if (this.done) return;
    const type = event.type ?? eventName ?? "";
    const index = event.output_index ?? 0;
    switch (type) {
      case "response.created":
      case "response.in_progress":
      case "response.queued":
        if (event.response?.id) this.builder.message.responseId = event.response.id;
        return;
      case "response.output_item.added":
        if (event.item) this.openItem(index, event.item);
        return;
      case "response.output_text.delta":
      case "response.refusal.delta":
        this.appendText(index, "message", event.delta);
        return;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        this.appendReasoning(index, event.delta, type.includes("summary") ? event.summary_index : undefined);
        return;
      case "response.output_text.annotation.added":
        if (event.annotation) this.addCitation(index, event.annotation);
        return;
      case "response.function_call_arguments.delta":
        this.appendArguments(index, event.delta);
        return;
      case "response.function_call_arguments.done": {
        const state = this.items.get(index);
        if (state && !state.streamed) this.appendArguments(index, event.arguments);
        return;
      }
      case "response.output_item.done":
        if (event.item) this.closeItem(index, event.item);
        return;
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
      case "response.cancelled":
        this.complete(event.response ?? {});
        return;
      case "error":
        this.fail(event.error ?? event);
        return;
      default:
        // content_part/summary_part bookkeeping, web search progress, annotations: nothing to build.
        return;
    }
  }

  private stateFor(index: number, type: string): ItemState {
    let state = this.items.get(index);
    if (!state) {
      state = { type, key: `item:${index}`, streamed: false, summaryIndex: 0 };
      this.items.set(index, state);
    }
    return state;
  }

  private openItem(index: number, item: ResponsesOutputItem): void {
    const state = this.stateFor(index, item.type ?? "unknown");
    if (state.type === "reasoning") this.builder.thinking(state.key, "");
    else if (state.type === "message") this.builder.text(state.key, "");
    else if (state.type === "function_call") {
      this.toolCount++;
      this.builder.toolCallStart(state.key, item.call_id ?? "", item.name ?? "");
      if (item.arguments) this.appendArguments(index, item.arguments);
    }
  }

  private appendText(index: number, type: "message", delta: string | undefined): void {
    const state = this.stateFor(index, type);
    if (state.type !== type || !delta) return;
    state.streamed = true;
    this.builder.text(state.key, delta);
  }

  private addCitation(index: number, annotation: ResponsesAnnotation): void {
    const state = this.items.get(index);
    if (state?.type !== "message" || annotation.type !== "url_citation" || !annotation.url) return;
    state.cited = true;
    this.builder.citation(state.key, {
      url: annotation.url,
      ...(annotation.title ? { title: annotation.title } : {}),
      ...(annotation.start_index !== undefined ? { startIndex: annotation.start_index } : {}),
      ...(annotation.end_index !== undefined ? { endIndex: annotation.end_index } : {}),
    });
  }

  /** A finished `web_search_call` item: the call (with the item itself, to send back) and its result. */
  private addWebSearch(item: ResponsesOutputItem): void {
    const id = item.id ?? "";
    const action = item.action ?? {};
    const input: Record<string, unknown> = {};
    if (action.query !== undefined) input.query = action.query;
    else if (action.queries !== undefined) input.queries = action.queries;
    else if (action.url !== undefined) input.url = action.url;
    const raw = { ...item, type: "web_search_call", id };
    this.builder.serverToolCallComplete({ type: "serverToolCall", id, name: "web_search", input, raw });
    const results = (action.sources ?? []).flatMap((source) =>
      source.url ? [{ url: source.url, ...(source.title ? { title: source.title } : {}) }] : [],
    );
    this.builder.serverToolResult({
      type: "serverToolResult",
      toolCallId: id,
      name: "web_search",
      results,
      ...(item.status === "failed" ? { errorMessage: "the search failed" } : {}),
    });
  }

  private appendReasoning(index: number, delta: string | undefined, summaryIndex: number | undefined): void {
    const state = this.stateFor(index, "reasoning");
    if (state.type !== "reasoning" || !delta) return;
    // Separate summary parts like paragraphs, as the item's final `summary` array implies.
    if (summaryIndex !== undefined && summaryIndex !== state.summaryIndex && state.streamed) {
      this.builder.thinking(state.key, "\n\n");
    }
    if (summaryIndex !== undefined) state.summaryIndex = summaryIndex;
    state.streamed = true;
    this.builder.thinking(state.key, delta);
  }

  private appendArguments(index: number, delta: string | undefined): void {
    const state = this.items.get(index);
    if (state?.type !== "function_call" || !delta) return;
    state.streamed = true;
    this.builder.toolCallDelta(state.key, delta);
  }

  private closeItem(index: number, item: ResponsesOutputItem): void {
    const known = this.items.has(index);
    const state = this.stateFor(index, item.type ?? "unknown");
    if (!known) this.openItem(index, item);
    if (state.type === "reasoning") {
      if (!state.streamed) {
        const summary = (item.summary ?? []).map((part) => part.text ?? "").filter(Boolean);
        const raw = (item.content ?? []).map((part) => part.text ?? "").filter(Boolean);
        this.appendReasoning(index, (summary.length > 0 ? summary : raw).join("\n\n"), undefined);
      }
      // The item itself is the signature: the next turn sends it back (with encrypted_content).
      const signature: Record<string, unknown> = { type: "reasoning", id: item.id, summary: item.summary ?? [] };
      if (item.encrypted_content) signature.encrypted_content = item.encrypted_content;
      this.builder.signature(state.key, JSON.stringify(signature));
    } else if (state.type === "message") {
      if (!state.streamed) {
        const text = (item.content ?? []).map((part) => part.text ?? part.refusal ?? "").join("");
        this.appendText(index, "message", text);
      }
      if (!state.cited) {
        for (const annotation of item.content?.flatMap((part) => part.annotations ?? []) ?? []) {
          this.addCitation(index, annotation);
        }
      }
    } else if (state.type === "web_search_call") {
      this.addWebSearch(item);
    } else if (state.type === "function_call") {
      this.builder.toolCallStart(state.key, item.call_id ?? "", item.name ?? "");
      if (!state.streamed) this.appendArguments(index, item.arguments);
      if (item.id) this.builder.signature(state.key, item.id);
    }
    this.builder.end(state.key);
  }

  private complete(response: ResponsesResponse): void {
    this.done = true;
    const message = this.builder.message;
    if (response.id) message.responseId = response.id;
    if (response.usage) applyResponsesUsage(response.usage, message.usage);
    this.builder.endAll();
    const status = response.status ?? "completed";
    const reason = response.incomplete_details?.reason ?? undefined;
    const stopReason = mapResponsesStopReason(status, reason, this.toolCount > 0);
    if (stopReason === "error") {
      message.errorMessage = response.error
        ? formatResponsesError(response.error)
        : `The response ended with status "${status}"${reason ? ` (${reason})` : ""}.`;
      // A `response.failed` for a rate limit or overload is retried like its HTTP status.
      if (response.error)
        throwIfRetryableStreamError(message.errorMessage, { text: describeErrorWords(response.error) });
    }
    this.builder.finish(stopReason, reason ?? status);
  }

  private fail(error: ResponsesErrorBody): void {
    this.done = true;
    const errorMessage = formatResponsesError(error);
    // Thrown with the status the same error has before the headers, so `runProvider` retries it alike.
    throwIfRetryableStreamError(errorMessage, { text: describeErrorWords(error) });
    this.builder.message.errorMessage = errorMessage;
    this.builder.finish("error");
  }
}

/** Maps Responses usage: input excludes `input_tokens_details.cached_tokens`; output includes reasoning. */
export function applyResponsesUsage(raw: ResponsesUsage, usage: Usage): void {
  const cached = raw.input_tokens_details?.cached_tokens ?? 0;
  usage.cacheRead = cached;
  usage.input = Math.max(0, (raw.input_tokens ?? 0) - cached);
  usage.output = raw.output_tokens ?? 0;
  usage.totalTokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

/** The words of an error body the retry classification reads: its code, type and message. */
function describeErrorWords(error: ResponsesErrorBody): string {
  return `${error.code ?? ""} ${error.type ?? ""} ${error.message ?? ""}`;
}

function formatResponsesError(error: ResponsesErrorBody): string {
  const message = error.message || "The provider reported an error.";
  return error.code ? `${message} (${error.code})` : message;
}

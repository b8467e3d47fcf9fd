import { utf8Length } from "../../dropped-arguments.js";
import { GyreError } from "../../errors.js";
import { throwIfRetryableStreamError } from "../in-stream-error.js";
import type { MessageBuilder } from "../message-builder.js";
import { generatedToolCallIdPrefix } from "./convert-messages.js";
import { convertGrounding, hasGrounding } from "./grounding.js";
import { mapGeminiFinishReason } from "./map-stop-reason.js";
import { applyPartialArgument } from "./streamed-arguments.js";
import type {
  GeminiChunk,
  GeminiFunctionCall,
  GeminiGroundingMetadata,
  GeminiPart,
  GeminiPartialArg,
  GeminiUsageMetadata,
} from "./wire.js";

type OpenBlock = { kind: "text" | "thinking"; key: string; index: number };
/** A Vertex call being rebuilt; `bytes` counts its fragments' values, `overLimit` once they passed the builder's limit. */
type StreamedCall = { key: string; args: Record<string, unknown>; bytes: number; overLimit?: boolean };

/**
 * Applies Gemini response chunks to a `MessageBuilder`. Parts are sequential: consecutive text
 * parts form one text block, consecutive `thought` parts one thinking block. A `thoughtSignature`
 * goes to the block its part belongs to (an empty text part's signature to the open block, or
 * else the last one). `functionCall` parts are complete calls, except Vertex streamed arguments,
 * rebuilt from `partialArgs` until a part without `willContinue` or the finishing chunk.
 * Code-execution parts (`executableCode`, `codeExecutionResult`) are not gyre content: they are
 * skipped, and they close the open text block so text on either side of them stays separate.
 * Google Search grounding (the last non-empty `groundingMetadata`) becomes, at the end, a
 * `web_search` server tool call and result after the text, and citations on the last text block.
 */
export class GeminiStreamReader {
  private open: OpenBlock | undefined;
  private streamed: StreamedCall | undefined;
  private blockCount = 0;
  private callCount = 0;
  private finishReason: string | undefined;
  private finishMessage: string | undefined;
  private blockReason: string | undefined;
  private blockReasonMessage: string | undefined;
  private readonly textSignatures = new Map<string, string>();
  private grounding: GeminiGroundingMetadata | undefined;

  constructor(private readonly builder: MessageBuilder) {}

  handle(chunk: GeminiChunk): void {
    if (chunk.error) {
      const { code, status, message } = chunk.error;
      const text = `Gemini stream error${status ? ` (${status})` : ""}: ${message ?? "no details"}`;
      // A 429/503 inside the stream is retried like the same status before the headers.
      throwIfRetryableStreamError(text, { status: code, text: `${status ?? ""} ${message ?? ""}` });
      throw new GyreError("http", text, code === undefined ? {} : { status: code });
    }
    if (chunk.responseId) this.builder.message.responseId = chunk.responseId;
    if (chunk.usageMetadata) this.applyUsage(chunk.usageMetadata);
    if (chunk.promptFeedback?.blockReason) {
      this.blockReason = chunk.promptFeedback.blockReason;
      this.blockReasonMessage = chunk.promptFeedback.blockReasonMessage;
    }
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) this.handlePart(part);
    if (hasGrounding(candidate?.groundingMetadata)) this.grounding = candidate.groundingMetadata;
    if (candidate?.finishReason) {
      this.finishReason = candidate.finishReason;
      this.finishMessage = candidate.finishMessage;
      this.closeStreamedCall();
    }
  }

  /** Call when the body has ended: finishes the message, or leaves it unfinished when no finish reason came. */
  end(): void {
    this.closeStreamedCall();
    this.addGrounding();
    this.closeOpen();
    if (this.blockReason) {
      const detail = this.blockReasonMessage ? `: ${this.blockReasonMessage}` : "";
      this.builder.fail(
        `Google blocked the prompt (${this.blockReason})${detail}; rephrase the request or remove the flagged content.`,
      );
      return;
    }
    if (this.finishReason === undefined) return;
    const hasToolCalls = this.builder.message.content.some((block) => block.type === "toolCall");
    const stop = mapGeminiFinishReason(this.finishReason, hasToolCalls, this.finishMessage);
    if (stop.errorMessage) this.builder.message.errorMessage = stop.errorMessage;
    this.builder.finish(stop.stopReason, this.finishReason);
  }

  /** Adds the search the grounding reports; call before the open block closes, so its text_end carries the citations. */
  private addGrounding(): void {
    const grounding = this.grounding;
    if (!grounding) return;
    const id = `grounding_${this.builder.message.responseId ?? "x"}`;
    const open = this.open?.kind === "text" ? this.open : undefined;
    const closed = this.builder.message.content.findLast((block) => block.type === "text");
    const text = open ? { type: "text" as const, text: this.builder.textSoFar(open.key) } : closed;
    const { call, result, citations } = convertGrounding(grounding, id, text);
    if (open) for (const citation of citations) this.builder.citation(open.key, citation);
    // A block closed before the grounding arrived (a function call came after it) gets its citations late.
    else if (closed && citations.length > 0) closed.citations = citations;
    this.closeOpen();
    this.builder.serverToolCallComplete(call);
    this.builder.serverToolResult(result);
  }

  private handlePart(part: GeminiPart): void {
    if (part.functionCall) {
      this.handleFunctionCall(part.functionCall, part.thoughtSignature);
      return;
    }
    if (typeof part.text !== "string") {
      this.closeStreamedCall();
      this.closeOpen();
      return;
    }
    const kind = part.thought ? "thinking" : "text";
    if (part.text === "" && this.open?.kind !== kind) {
      if (part.thoughtSignature) this.attachToLast(part.thoughtSignature);
      return;
    }
    this.closeStreamedCall();
    const block = this.ensureOpen(kind);
    if (kind === "thinking") this.builder.thinking(block.key, part.text);
    else this.builder.text(block.key, part.text);
    if (!part.thoughtSignature) return;
    if (kind === "thinking") this.builder.signature(block.key, part.thoughtSignature);
    else this.textSignatures.set(block.key, part.thoughtSignature);
  }

  private handleFunctionCall(call: GeminiFunctionCall, signature: string | undefined): void {
    if (call.name) {
      this.closeStreamedCall();
      this.closeOpen();
      const key = `call-${this.blockCount++}`;
      const id = call.id || `${generatedToolCallIdPrefix}${this.builder.message.responseId ?? "x"}_${this.callCount}`;
      this.callCount++;
      if (!call.willContinue && !call.partialArgs) {
        this.builder.toolCallComplete(key, id, call.name, call.args ?? {}, signature);
        return;
      }
      this.builder.toolCallStart(key, id, call.name);
      const args = { ...call.args };
      this.streamed = {
        key,
        args,
        bytes: this.builder.maxToolArgumentBytes === undefined ? 0 : utf8Length(JSON.stringify(args)),
      };
    }
    const streamed = this.streamed;
    if (!streamed) return;
    if (signature) this.builder.signature(streamed.key, signature);
    for (const argument of call.partialArgs ?? []) this.applyStreamed(streamed, argument);
    if (!call.willContinue) this.closeStreamedCall();
  }

  /** Applies one fragment, unless the call's values already passed the limit: then they are only counted. */
  private applyStreamed(streamed: StreamedCall, argument: GeminiPartialArg): void {
    const limit = this.builder.maxToolArgumentBytes;
    if (limit !== undefined) {
      // The value and its path: about what the fragment adds to the arguments' JSON.
      streamed.bytes += utf8Length(argument.stringValue ?? "") + (argument.jsonPath?.length ?? 0);
      if (streamed.overLimit) return;
      if (streamed.bytes > limit) {
        streamed.overLimit = true;
        return;
      }
    }
    applyPartialArgument(streamed.args, argument);
  }

  private closeStreamedCall(): void {
    const streamed = this.streamed;
    if (!streamed) return;
    this.streamed = undefined;
    if (streamed.overLimit) {
      this.builder.toolCallOversized(streamed.key, streamed.bytes, JSON.stringify(streamed.args));
      this.builder.end(streamed.key);
      return;
    }
    // The object is only complete now; it goes out as one delta.
    this.builder.toolCallDelta(streamed.key, JSON.stringify(streamed.args));
    this.builder.end(streamed.key);
  }

  private ensureOpen(kind: OpenBlock["kind"]): OpenBlock {
    if (this.open?.kind === kind) return this.open;
    this.closeOpen();
    this.open = { kind, key: `block-${this.blockCount++}`, index: this.builder.message.content.length };
    return this.open;
  }

  private closeOpen(): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    this.builder.end(open.key);
    const signature = this.textSignatures.get(open.key);
    const block = this.builder.message.content[open.index];
    if (signature && block?.type === "text") block.signature = signature;
  }

  /** A signature on an empty part belongs to the block before it. */
  private attachToLast(signature: string): void {
    if (this.streamed) {
      this.builder.signature(this.streamed.key, signature);
      return;
    }
    if (this.open) {
      if (this.open.kind === "thinking") this.builder.signature(this.open.key, signature);
      else this.textSignatures.set(this.open.key, signature);
      return;
    }
    const last = this.builder.message.content.at(-1);
    if (last?.type === "text") last.signature ??= signature;
    else if (last?.type === "thinking" || last?.type === "toolCall") last.signature ??= signature;
  }

  private applyUsage(metadata: GeminiUsageMetadata): void {
    // Vertex sends interim usageMetadata without counts; only a counted one replaces the last.
    if (metadata.promptTokenCount === undefined && metadata.totalTokenCount === undefined) return;
    const usage = this.builder.message.usage;
    const cached = metadata.cachedContentTokenCount ?? 0;
    // Tool-use prompt tokens (search results, code output) are billed as input.
    usage.input = (metadata.promptTokenCount ?? 0) - cached + (metadata.toolUsePromptTokenCount ?? 0);
    usage.output = (metadata.candidatesTokenCount ?? 0) + (metadata.thoughtsTokenCount ?? 0);
    usage.cacheRead = cached;
    usage.cacheWrite = 0;
  }
}

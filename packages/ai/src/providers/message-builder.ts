import { createAssistantMessage } from "../create-assistant-message.js";
import { createDroppedArguments, readArgumentsHead, utf8Length } from "../dropped-arguments.js";
import type { AssistantMessageEventStream } from "../event-stream.js";
import { freezeJson } from "../frozen-json.js";
import type {
  AssistantMessage,
  Citation,
  Model,
  ServerToolCall,
  ServerToolResult,
  StopReason,
  ToolCall,
} from "../types.js";
import { calculateCost, createEmptyUsage } from "../usage.js";

type OpenBlock =
  | { kind: "text"; index: number; parts: string[]; citations?: Citation[] }
  | {
      kind: "serverToolCall";
      index: number;
      parts: string[];
      id: string;
      name: string;
      /** The provider's item for this call, built once its input is complete. */
      createRaw?: (input: Record<string, unknown>) => Record<string, unknown>;
    }
  | { kind: "thinking"; index: number; parts: string[]; signature?: string; redacted?: boolean }
  | {
      kind: "toolCall";
      index: number;
      parts: string[];
      id: string;
      name: string;
      signature?: string;
      /** The id is ours (the wire sent none, or a repeat); a real id arriving later replaces it. */
      generatedId?: boolean;
      /** UTF-8 bytes of argument text received so far (counted only under a limit). */
      bytes: number;
      /** Set once the text passed the limit: its first characters, kept to name short fields; `parts` is emptied. */
      head?: string;
    };

/** How much of a dropped call's argument text is kept, to read short fields such as `path` from. */
const ARGUMENT_HEAD_CHARS = 4096;

/** Options of a builder: limits that keep one response's memory bounded. */
export type MessageBuilderOptions = {
  /** See `StreamOptions.maxToolArgumentBytes`. */
  maxToolArgumentBytes?: number | undefined;
};

/**
 * Builds an assistant message while emitting the matching docs/design/messages-and-events.md#provider-stream-events events. Providers call
 * `text*`/`thinking*`/`toolCall*` as wire data arrives and `finish`/`fail` once; the builder
 * closes any block left open, parses tool arguments and computes cost. Blocks are addressed by
 * a provider-chosen key (wire index, item id…) so interleaved streams work.
 */
export class MessageBuilder {
  readonly message: AssistantMessage;
  private readonly open = new Map<string, OpenBlock>();
  /** Every tool-call id given out in this message: each call's id must be unique within it. */
  private readonly toolCallIds = new Set<string>();
  private terminated = false;
  /** See `StreamOptions.maxToolArgumentBytes`; parsers that keep argument text of their own bound it by this too. */
  readonly maxToolArgumentBytes: number | undefined;

  constructor(
    readonly model: Model,
    readonly stream: AssistantMessageEventStream,
    options: MessageBuilderOptions = {},
  ) {
    this.message = createAssistantMessage(model, { stopReason: "stop" });
    this.maxToolArgumentBytes = options.maxToolArgumentBytes;
  }

  get isTerminated(): boolean {
    return this.terminated;
  }

  /**
   * Applied to each finished tool call before its `toolcall_end` is pushed (e.g. removing the
   * nulls strict mode forces on optional arguments), so every consumer sees the final call.
   */
  finalizeToolCall: ((toolCall: ToolCall) => ToolCall) | undefined;

  /** Whether the response headers arrived (set by `postProviderRequest`): faults from here on are "after the headers". */
  responseStarted = false;

  /**
   * Forgets a failed attempt that emitted no block, so the request can be sent again on the same
   * stream: usage, response id and the headers mark. Only valid while `message.content` is empty.
   */
  resetForRetry(): void {
    if (this.message.content.length > 0 || this.terminated)
      throw new Error("Only an attempt without output can be retried.");
    this.message.usage = createEmptyUsage();
    delete this.message.responseId;
    this.responseStarted = false;
  }

  /** Emits `start`. Call once, before any block. */
  start(): void {
    this.stream.push({ type: "start", message: structuredClone(this.message) });
  }

  hasBlock(key: string): boolean {
    return this.open.has(key);
  }

  /** Appends text to the text block `key`, opening it first if needed. */
  text(key: string, delta: string): void {
    let block = this.open.get(key);
    if (block?.kind !== "text") {
      if (block) this.end(key);
      block = { kind: "text", index: this.message.content.length, parts: [] };
      this.message.content.push({ type: "text", text: "" });
      this.open.set(key, block);
      this.stream.push({ type: "text_start", contentIndex: block.index });
    }
    if (delta === "") return;
    block.parts.push(delta);
    this.stream.push({ type: "text_delta", contentIndex: block.index, delta });
  }

  /** Appends thinking to block `key`, opening it if needed. `signature` (if given) replaces or extends per `appendSignature`. */
  thinking(key: string, delta: string, options: { redacted?: boolean } = {}): void {
    let block = this.open.get(key);
    if (block?.kind !== "thinking") {
      if (block) this.end(key);
      block = { kind: "thinking", index: this.message.content.length, parts: [] };
      if (options.redacted) block.redacted = true;
      this.message.content.push({ type: "thinking", thinking: "" });
      this.open.set(key, block);
      this.stream.push({ type: "thinking_start", contentIndex: block.index });
    }
    if (delta === "") return;
    block.parts.push(delta);
    this.stream.push({ type: "thinking_delta", contentIndex: block.index, delta });
  }

  /** Sets (or, with `append`, extends) the signature of the open thinking or tool-call block `key`. */
  signature(key: string, signature: string, append = false): void {
    const block = this.open.get(key);
    if (block?.kind !== "thinking" && block?.kind !== "toolCall") return;
    block.signature = append ? (block.signature ?? "") + signature : signature;
  }

  /**
   * Opens tool-call block `key`. A second call for an open key only fills a missing name, or
   * replaces a generated id. An empty id, or one already used in this message (some
   * OpenAI-compatible servers repeat `call_0`), gets a generated unique one: tool results are
   * matched by id, so two calls sharing one would make every later request invalid.
   */
  toolCallStart(key: string, id: string, name: string): void {
    const existing = this.open.get(key);
    if (existing?.kind === "toolCall") {
      if (existing.generatedId && id && !this.toolCallIds.has(id)) {
        this.toolCallIds.delete(existing.id);
        this.toolCallIds.add(id);
        existing.id = id;
        existing.generatedId = false;
      }
      if (!existing.name && name) existing.name = name;
      return;
    }
    if (existing) this.end(key);
    const generatedId = !id || this.toolCallIds.has(id);
    const uniqueId = generatedId ? this.generateToolCallId() : id;
    this.toolCallIds.add(uniqueId);
    const block: OpenBlock = {
      kind: "toolCall",
      index: this.message.content.length,
      parts: [],
      id: uniqueId,
      name,
      bytes: 0,
      ...(generatedId ? { generatedId } : {}),
    };
    this.message.content.push({ type: "toolCall", id: uniqueId, name, arguments: {} });
    this.open.set(key, block);
    this.stream.push({ type: "toolcall_start", contentIndex: block.index, id: uniqueId, name });
  }

  /** `call_gyre_` and random characters: unique within the message and, in practice, the session. */
  private generateToolCallId(): string {
    let id: string;
    do id = `call_gyre_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    while (this.toolCallIds.has(id));
    return id;
  }

  /**
   * Appends raw argument JSON text to tool-call block `key`. Past `maxToolArgumentBytes` the text
   * is dropped (only its length is counted) and no more `toolcall_delta`s go out for the call.
   */
  toolCallDelta(key: string, delta: string): void {
    const block = this.open.get(key);
    if (block?.kind !== "toolCall" || delta === "") return;
    const limit = this.maxToolArgumentBytes;
    if (limit !== undefined) {
      block.bytes += utf8Length(delta);
      if (block.head !== undefined) return;
      if (block.bytes > limit) {
        const before = block.parts.join("");
        block.head =
          before.length >= ARGUMENT_HEAD_CHARS
            ? before.slice(0, ARGUMENT_HEAD_CHARS)
            : before + delta.slice(0, ARGUMENT_HEAD_CHARS - before.length);
        block.parts = [];
        return;
      }
    }
    block.parts.push(delta);
    this.stream.push({ type: "toolcall_delta", contentIndex: block.index, delta });
  }

  /**
   * Marks tool-call block `key` as past the limit for a parser that assembles the arguments itself
   * (Vertex streamed arguments) and stopped once its own count of `bytes` passed it; `head` is the
   * start of what it kept, to read short fields from. The call ends as the placeholder.
   */
  toolCallOversized(key: string, bytes: number, head: string): void {
    const block = this.open.get(key);
    if (block?.kind !== "toolCall") return;
    block.bytes = Math.max(block.bytes, bytes);
    block.head ??= head.slice(0, ARGUMENT_HEAD_CHARS);
    block.parts = [];
  }

  /** The text block `key` has received so far ("" when `key` is no open text block). */
  textSoFar(key: string): string {
    const block = this.open.get(key);
    return block?.kind === "text" ? block.parts.join("") : "";
  }

  /** Adds a citation to the open text block `key` (it goes out with the block's `text_end`). */
  citation(key: string, citation: Citation): void {
    const block = this.open.get(key);
    if (block?.kind !== "text") return;
    block.citations ??= [];
    block.citations.push(citation);
  }

  /**
   * Opens a server-side tool call (web search) as block `key`; its input JSON arrives through
   * `serverToolCallInput` and is parsed at `end`. `createRaw` builds the provider's own item from
   * the final input, kept so the same API gets it back verbatim.
   */
  serverToolCallStart(
    key: string,
    id: string,
    name: string,
    createRaw?: (input: Record<string, unknown>) => Record<string, unknown>,
  ): void {
    if (this.open.has(key)) this.end(key);
    const index = this.message.content.length;
    this.message.content.push({ type: "serverToolCall", id, name, input: {} });
    this.open.set(key, { kind: "serverToolCall", index, parts: [], id, name, ...(createRaw ? { createRaw } : {}) });
    this.stream.push({ type: "server_tool_call_start", contentIndex: index, id, name });
  }

  /** Appends input JSON text to the open server tool call `key`. UIs see the input only at its end. */
  serverToolCallInput(key: string, delta: string): void {
    const block = this.open.get(key);
    if (block?.kind === "serverToolCall" && delta !== "") block.parts.push(delta);
  }

  /** Adds a complete server-side tool call (for APIs that send it whole). */
  serverToolCallComplete(call: ServerToolCall): void {
    const index = this.message.content.length;
    const content = freezeJson(structuredClone(call));
    this.message.content.push(content);
    this.stream.push({ type: "server_tool_call_start", contentIndex: index, id: call.id, name: call.name });
    this.stream.push({ type: "server_tool_call_end", contentIndex: index, content });
  }

  /** Adds the complete result of a server-side tool call. */
  serverToolResult(result: ServerToolResult): void {
    const index = this.message.content.length;
    const content = freezeJson(structuredClone(result));
    this.message.content.push(content);
    const start = { contentIndex: index, toolCallId: result.toolCallId, name: result.name };
    this.stream.push({ type: "server_tool_result_start", ...start });
    this.stream.push({ type: "server_tool_result_end", contentIndex: index, content });
  }

  /** Closes block `key`, emitting its `*_end` event. Unknown keys are ignored. */
  end(key: string): void {
    const block = this.open.get(key);
    if (!block) return;
    this.open.delete(key);
    const joined = block.parts.join("");
    switch (block.kind) {
      case "text": {
        const citations = block.citations ? { citations: block.citations } : {};
        this.message.content[block.index] = { type: "text", text: joined, ...citations };
        this.stream.push({ type: "text_end", contentIndex: block.index, content: joined, ...citations });
        return;
      }
      case "serverToolCall": {
        const input = createToolCall(block.id, block.name, joined).arguments;
        const call: ServerToolCall = { type: "serverToolCall", id: block.id, name: block.name, input };
        if (block.createRaw) call.raw = block.createRaw(input);
        const content = freezeJson(call);
        this.message.content[block.index] = content;
        this.stream.push({ type: "server_tool_call_end", contentIndex: block.index, content });
        return;
      }
      case "thinking": {
        const content: AssistantMessage["content"][number] = { type: "thinking", thinking: joined };
        if (block.signature !== undefined) content.signature = block.signature;
        if (block.redacted) content.redacted = true;
        this.message.content[block.index] = content;
        this.stream.push({
          type: "thinking_end",
          contentIndex: block.index,
          content: joined,
          ...(block.signature !== undefined ? { signature: block.signature } : {}),
          ...(block.redacted ? { redacted: true } : {}),
        });
        return;
      }
      case "toolCall": {
        let toolCall =
          block.head === undefined ? createToolCall(block.id, block.name, joined) : this.droppedCall(block);
        if (block.signature !== undefined) toolCall.signature = block.signature;
        if (this.finalizeToolCall && block.head === undefined) toolCall = this.finalizeToolCall(toolCall);
        this.message.content[block.index] = toolCall;
        this.stream.push({ type: "toolcall_end", contentIndex: block.index, toolCall });
        return;
      }
      default: {
        const never: never = block;
        throw new Error(`unknown block ${JSON.stringify(never)}`);
      }
    }
  }

  /** The call whose argument text passed the limit: the placeholder and the short fields its head names. */
  private droppedCall(block: Extract<OpenBlock, { kind: "toolCall" }>): ToolCall {
    const kept = readArgumentsHead(block.head ?? "");
    const args = createDroppedArguments(block.name, block.bytes, this.maxToolArgumentBytes ?? 0, kept);
    return { type: "toolCall", id: block.id, name: block.name, arguments: freezeJson(args) };
  }

  /** Adds a complete tool call (for APIs that send arguments whole as an object). */
  toolCallComplete(key: string, id: string, name: string, args: unknown, signature?: string): void {
    this.toolCallStart(key, id, name);
    this.toolCallDelta(key, JSON.stringify(args ?? {}));
    if (signature !== undefined) this.signature(key, signature);
    this.end(key);
  }

  endAll(): void {
    for (const key of [...this.open.keys()]) this.end(key);
  }

  /** Ends the stream with `done` (or `error` for stopReason "error"/"aborted"). */
  finish(stopReason: StopReason, rawStopReason?: string): void {
    if (this.terminated) return;
    this.endAll();
    this.terminated = true;
    this.message.stopReason = stopReason;
    if (rawStopReason !== undefined) this.message.rawStopReason = rawStopReason;
    calculateCost(this.model, this.message.usage);
    if (stopReason === "error" || stopReason === "aborted") {
      this.message.errorMessage ??=
        stopReason === "aborted" ? "Request was aborted." : "The provider reported an error.";
      this.stream.push({ type: "error", reason: stopReason, message: this.message });
    } else {
      this.stream.push({ type: "done", reason: stopReason, message: this.message });
    }
  }

  /** Ends the stream with `error`, keeping the partial content. */
  fail(errorMessage: string, aborted = false): void {
    if (this.terminated) return;
    this.message.errorMessage = errorMessage;
    this.finish(aborted ? "aborted" : "error");
  }
}

/**
 * Parses streamed argument text into a tool call; invalid JSON keeps the raw text. The parsed
 * arguments are deeply frozen: they are the model's words, and providers cache their
 * serialization across calls (hooks that want other arguments return a new object).
 */
export function createToolCall(id: string, name: string, rawArguments: string): ToolCall {
  const toolCall: ToolCall = { type: "toolCall", id, name, arguments: {} };
  const text = rawArguments.trim();
  if (text === "") return toolCall;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
      toolCall.arguments = freezeJson(parsed as Record<string, unknown>);
      return toolCall;
    }
  } catch {
    // falls through: the raw text is kept for the agent's error message
  }
  toolCall.rawArguments = rawArguments;
  return toolCall;
}

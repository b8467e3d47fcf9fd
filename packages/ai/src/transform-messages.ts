import { convertServerToolBlockToText } from "./server-tool-text.js";
import type { AssistantMessage, Message, Model, ServerToolCall, ServerToolResult, ToolResultMessage } from "./types.js";

export type TransformOptions = {
  /** Maps a tool-call id to one the target API accepts. Must be deterministic. */
  normalizeToolCallId?: (id: string) => string;
};

/**
 * Makes a history valid for `model` before it is sent:
 * - assistant messages that ended in `error` or `aborted` are dropped (with their tool results);
 * - thinking made by another provider/model becomes plain text (signatures only mean something
 *   to the model that made them); empty thinking is dropped;
 * - server-side tool blocks (web search) go back as they came only to the API and provider that
 *   made them, and only when they carry the provider's own item (`raw`), a result with its call;
 *   everywhere else they become text, so nothing searched is lost or sent where it is invalid;
 * - tool-call ids are normalised, and results follow their call's new id;
 * - a tool call without a result gets a synthetic error result, placed right after its message.
 * The input is not modified. Messages that need no change are the input's own objects, and when
 * none changes the result is the input array itself (callers must not mutate either); changed
 * ones are copies.
 */
export function transformMessages(messages: Message[], model: Model, options: TransformOptions = {}): Message[] {
  const normalize = options.normalizeToolCallId ?? ((id: string) => id);
  const droppedCalls = new Set<string>();
  let allAnswered: Set<string> | undefined;
  // Results nearly always follow their call directly; the set of every answered id is built
  // only for a call that finds none there (per-call set operations dominate long histories).
  const isAnswered = (callIndex: number, id: string) => {
    for (let index = callIndex + 1; index < messages.length; index++) {
      const next = messages[index];
      if (next?.role !== "toolResult") break;
      if (next.toolCallId === id) return true;
    }
    allAnswered ??= new Set(messages.flatMap((message) => (message.role === "toolResult" ? [message.toolCallId] : [])));
    return allAnswered.has(id);
  };

  // The output is the input itself until the first message that differs (a copy, a drop, an added result).
  let result: Message[] | undefined;
  let same = 0;
  const emit = (message: Message, index: number) => {
    if (result === undefined && index === same && message === messages[index]) {
      same++;
      return;
    }
    result ??= messages.slice(0, same);
    result.push(message);
  };
  let pending: { id: string; name: string }[] = [];
  const flushPending = () => {
    if (pending.length === 0) return;
    for (const call of pending) emit(createInterruptedResult(call.id, call.name), -1);
    pending = [];
  };

  // Runs over the whole history before every call: unchanged messages cost no allocation.
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (message.role === "assistant") {
      flushPending();
      if (message.stopReason === "error" || message.stopReason === "aborted") {
        for (const block of message.content) if (block.type === "toolCall") droppedCalls.add(block.id);
        continue;
      }
      emit(transformAssistant(message, model, index === messages.length - 1, normalize), index);
      for (const block of message.content)
        if (block.type === "toolCall" && !isAnswered(index, block.id))
          pending.push({ id: normalize(block.id), name: block.name });
    } else if (message.role === "toolResult") {
      if (droppedCalls.has(message.toolCallId)) continue;
      const id = normalize(message.toolCallId);
      emit(id === message.toolCallId ? message : { ...message, toolCallId: id }, index);
    } else {
      flushPending();
      emit(message, index);
    }
  }
  flushPending();
  return result ?? (same === messages.length ? messages : messages.slice(0, same));
}

/** `message` made valid for `model` (see `transformMessages`): itself when no block changes, else a copy. */
function transformAssistant(
  message: AssistantMessage,
  model: Model,
  isLast: boolean,
  normalize: (id: string) => string,
): AssistantMessage {
  const sameModel = message.provider === model.provider && message.model === model.id;
  const replayable = hasServerBlocks(message) ? findReplayableServerBlocks(message, model, isLast) : undefined;
  let content: AssistantMessage["content"] | undefined; // made at the first changed block
  for (let at = 0; at < message.content.length; at++) {
    const block = message.content[at] as AssistantMessage["content"][number];
    let kept: AssistantMessage["content"][number] | undefined = block;
    if (block.type === "thinking") {
      if (!sameModel)
        kept = block.thinking.trim() && !block.redacted ? { type: "text", text: block.thinking } : undefined;
    } else if (block.type === "serverToolCall" || block.type === "serverToolResult") {
      if (!replayable?.has(block)) kept = { type: "text", text: convertServerToolBlockToText(block) };
    } else if (block.type === "toolCall") {
      const id = normalize(block.id);
      if (id !== block.id) kept = { ...block, id };
    }
    if (kept !== block) content ??= message.content.slice(0, at);
    if (content !== undefined && kept !== undefined) content.push(kept);
  }
  return content === undefined ? message : { ...message, content };
}

function hasServerBlocks(message: AssistantMessage): boolean {
  for (const block of message.content)
    if (block.type === "serverToolCall" || block.type === "serverToolResult") return true;
  return false;
}

/**
 * The server tool blocks of `message` that `model`'s API takes back verbatim: same API and
 * provider, a provider item (`raw`) on the call, a result only with its call, and a call only
 * with its result, except in the last message, which a paused turn (`pause_turn`) resends as is.
 */
function findReplayableServerBlocks(
  message: AssistantMessage,
  model: Model,
  isLast: boolean,
): Set<ServerToolCall | ServerToolResult> {
  const replayable = new Set<ServerToolCall | ServerToolResult>();
  if (message.api !== model.api || message.provider !== model.provider) return replayable;
  const calls = new Map<string, ServerToolCall>();
  const results = new Map<string, ServerToolResult>();
  for (const block of message.content) {
    if (block.type === "serverToolCall" && block.raw) calls.set(block.id, block);
    if (block.type === "serverToolResult") results.set(block.toolCallId, block);
  }
  for (const [id, call] of calls) {
    const result = results.get(id);
    if (!result && !isLast) continue;
    replayable.add(call);
    if (result) replayable.add(result);
  }
  return replayable;
}

function createInterruptedResult(toolCallId: string, toolName: string): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [
      { type: "text", text: "This tool call was interrupted before it returned a result; it was not completed." },
    ],
    isError: true,
    timestamp: Date.now(),
  };
}

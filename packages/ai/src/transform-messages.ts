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
 * Returns a new array; the input is not modified. Messages that need no change are the input's
 * own objects (callers must not mutate them); changed ones are copies.
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

  const result: Message[] = [];
  let pending: { id: string; name: string }[] = [];
  const flushPending = () => {
    for (const call of pending) result.push(createInterruptedResult(call.id, call.name));
    pending = [];
  };

  for (const [index, message] of messages.entries()) {
    if (message.role === "assistant") {
      flushPending();
      if (message.stopReason === "error" || message.stopReason === "aborted") {
        for (const block of message.content) if (block.type === "toolCall") droppedCalls.add(block.id);
        continue;
      }
      const sameModel = message.provider === model.provider && message.model === model.id;
      const replayable = findReplayableServerBlocks(message, model, index === messages.length - 1);
      const content: AssistantMessage["content"] = [];
      // A message whose blocks all pass unchanged goes on as the same object, so providers can
      // reuse what they derived from it on earlier calls.
      let changed = false;
      for (const block of message.content) {
        if (block.type === "thinking") {
          if (sameModel) content.push(block);
          else {
            changed = true;
            if (block.thinking.trim() && !block.redacted) content.push({ type: "text", text: block.thinking });
          }
        } else if (block.type === "serverToolCall" || block.type === "serverToolResult") {
          if (replayable.has(block)) content.push(block);
          else {
            changed = true;
            content.push({ type: "text", text: convertServerToolBlockToText(block) });
          }
        } else if (block.type === "toolCall") {
          const id = normalize(block.id);
          changed ||= id !== block.id;
          content.push(id === block.id ? block : { ...block, id });
          if (!isAnswered(index, block.id)) pending.push({ id, name: block.name });
        } else {
          content.push(block);
        }
      }
      result.push(changed ? { ...message, content } : message);
    } else if (message.role === "toolResult") {
      if (droppedCalls.has(message.toolCallId)) continue;
      // `normalize` is deterministic, so a result maps exactly as its call did.
      const id = normalize(message.toolCallId);
      result.push(id === message.toolCallId ? message : { ...message, toolCallId: id });
    } else {
      flushPending();
      result.push(message);
    }
  }
  flushPending();
  return result;
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

import { ensureToolResults } from "./ensure-tool-results.js";
import { convertServerToolBlockToText } from "./server-tool-text.js";
import type { AssistantMessage, Message, Model, ServerToolCall, ServerToolResult } from "./types.js";

/** What the model is told for a call with no result in the history it is sent. */
const UNANSWERED_CALL_TEXT = "This tool call was interrupted before it returned a result; it was not completed.";

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
 * - a tool call without a result gets a synthetic error result, placed right after its message's
 *   results (`ensureToolResults`).
 * Returns a new array; the input is not modified. Messages that need no change are the input's
 * own objects (callers must not mutate them); changed ones are copies.
 */
export function transformMessages(messages: Message[], model: Model, options: TransformOptions = {}): Message[] {
  const normalize = options.normalizeToolCallId ?? ((id: string) => id);
  const droppedCalls = new Set<string>();
  const result: Message[] = [];
  for (const [index, message] of messages.entries()) {
    if (message.role === "assistant") {
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
      result.push(message);
    }
  }
  return ensureToolResults(result, { text: UNANSWERED_CALL_TEXT, timestamp: Date.now() });
}

/**
 * The server tool blocks of `message` that `model`'s API takes back verbatim: same API and
 * provider, a provider item (`raw`) on the call, a result only with its call, and a call only
 * with its result, except in the last message, which a paused turn (`pause_turn`) resends as is.
 */
/** Shared by every message without server tool blocks (it is only ever read). */
const NONE_REPLAYABLE: ReadonlySet<ServerToolCall | ServerToolResult> = new Set();

function findReplayableServerBlocks(
  message: AssistantMessage,
  model: Model,
  isLast: boolean,
): ReadonlySet<ServerToolCall | ServerToolResult> {
  if (!message.content.some((block) => block.type === "serverToolCall" || block.type === "serverToolResult"))
    return NONE_REPLAYABLE;
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

import type { AssistantMessage, Message, Model, ToolResultMessage } from "./types.js";

export type TransformOptions = {
  /** Maps a tool-call id to one the target API accepts. Must be deterministic. */
  normalizeToolCallId?: (id: string) => string;
};

/**
 * Makes a history valid for `model` before it is sent:
 * - assistant messages that ended in `error` or `aborted` are dropped (with their tool results);
 * - thinking made by another provider/model becomes plain text (signatures only mean something
 *   to the model that made them); empty thinking is dropped;
 * - tool-call ids are normalised, and results follow their call's new id;
 * - a tool call without a result gets a synthetic error result, placed right after its message.
 * Returns a new array; the input is not modified.
 */
export function transformMessages(messages: Message[], model: Model, options: TransformOptions = {}): Message[] {
  const normalize = options.normalizeToolCallId ?? ((id: string) => id);
  const droppedCalls = new Set<string>();
  const idMap = new Map<string, string>();
  const answered = new Set<string>();
  for (const message of messages) if (message.role === "toolResult") answered.add(message.toolCallId);

  const result: Message[] = [];
  let pending: { id: string; name: string }[] = [];
  const flushPending = () => {
    for (const call of pending) result.push(createInterruptedResult(call.id, call.name));
    pending = [];
  };

  for (const message of messages) {
    if (message.role === "assistant") {
      flushPending();
      if (message.stopReason === "error" || message.stopReason === "aborted") {
        for (const block of message.content) if (block.type === "toolCall") droppedCalls.add(block.id);
        continue;
      }
      const sameModel = message.provider === model.provider && message.model === model.id;
      const content: AssistantMessage["content"] = [];
      for (const block of message.content) {
        if (block.type === "thinking") {
          if (sameModel) content.push(block);
          else if (block.thinking.trim() && !block.redacted) content.push({ type: "text", text: block.thinking });
        } else if (block.type === "toolCall") {
          const id = normalize(block.id);
          idMap.set(block.id, id);
          content.push(id === block.id ? block : { ...block, id });
          if (!answered.has(block.id)) pending.push({ id, name: block.name });
        } else {
          content.push(block);
        }
      }
      result.push({ ...message, content });
    } else if (message.role === "toolResult") {
      if (droppedCalls.has(message.toolCallId)) continue;
      const id = idMap.get(message.toolCallId) ?? normalize(message.toolCallId);
      result.push(id === message.toolCallId ? message : { ...message, toolCallId: id });
    } else {
      flushPending();
      result.push(message);
    }
  }
  flushPending();
  return result;
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

/** Replaces characters an API rejects and truncates to `maxLength`, keeping ids stable. */
export function sanitizeToolCallId(id: string, maxLength = 64): string {
  const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, "_");
  return cleaned.length > maxLength ? cleaned.slice(0, maxLength) : cleaned;
}

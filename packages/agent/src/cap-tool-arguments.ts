/**
 * Oversized tool-call arguments. A model can emit a call whose arguments are far larger than any
 * tool accepts (a 50 MB `write`). Kept whole, they would be persisted and re-sent with every later
 * request, so the loop replaces them with a small placeholder before the message is announced
 * (`message_end`), stored or appended, and the call gets an error result instead of running.
 */
import {
  type AssistantMessage,
  type AssistantMessageEvent,
  createDroppedArguments,
  DROPPED_ARGUMENTS_KEY,
  type DroppedArguments,
  readDroppedArguments,
  type ToolCall,
  utf8Length,
} from "@gyre/ai";
import type { AgentMessage } from "./types.js";

export { DROPPED_ARGUMENTS_KEY, type DroppedArguments, readDroppedArguments };

/** Default cap on one call's arguments, as JSON bytes: above any real edit, far above what fits a context window. */
export const DEFAULT_MAX_TOOL_ARGUMENT_BYTES = 1024 * 1024;

/** The size of a call's arguments as the model sent them: JSON bytes (the raw text when it was not valid JSON). */
export function measureToolArguments(toolCall: ToolCall): number {
  return utf8Length(toolCall.rawArguments ?? JSON.stringify(toolCall.arguments));
}

/**
 * Returns the call unchanged when its arguments fit `limitBytes`, else a copy whose arguments are
 * short kept fields plus a `gyreDroppedArguments` record (and no `rawArguments`).
 */
export function capToolCall(toolCall: ToolCall, limitBytes: number): ToolCall {
  const bytes = measureToolArguments(toolCall);
  if (bytes <= limitBytes) return toolCall;
  const { rawArguments: _raw, ...rest } = toolCall;
  return { ...rest, arguments: createDroppedArguments(toolCall.name, bytes, limitBytes, toolCall.arguments) };
}

/** The message with every oversized tool call capped; the same object when nothing was too large. */
export function capToolArguments(message: AssistantMessage, limitBytes: number): AssistantMessage {
  let changed = false;
  const content = message.content.map((block) => {
    if (block.type !== "toolCall") return block;
    const capped = capToolCall(block, limitBytes);
    if (capped !== block) changed = true;
    return capped;
  });
  return changed ? { ...message, content } : message;
}

/**
 * A copy of `messages` in which every assistant message with an oversized tool call is replaced
 * by its capped copy (`capToolArguments`); other messages are the same objects. Never mutates.
 */
export function capHistoryArguments(messages: readonly AgentMessage[], limitBytes: number): AgentMessage[] {
  return messages.map((message) => (message.role === "assistant" ? capToolArguments(message, limitBytes) : message));
}

/**
 * Bounds what the stream's events carry of one huge call: `toolcall_delta`s past the limit are
 * not forwarded (returns undefined), and `toolcall_end` carries the capped call. Keeps a running
 * count per content index, so it is linear in the stream's length.
 */
export function createArgumentStreamCap(
  limitBytes: number,
): (event: AssistantMessageEvent) => AssistantMessageEvent | undefined {
  const streamed = new Map<number, number>();
  return (event) => {
    if (event.type === "toolcall_delta") {
      const total = (streamed.get(event.contentIndex) ?? 0) + event.delta.length;
      streamed.set(event.contentIndex, total);
      return total > limitBytes ? undefined : event;
    }
    if (event.type === "toolcall_end") {
      const toolCall = capToolCall(event.toolCall, limitBytes);
      return toolCall === event.toolCall ? event : { ...event, toolCall };
    }
    return event;
  };
}

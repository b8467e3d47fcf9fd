/**
 * Oversized tool-call arguments. A model can emit a call whose arguments are far larger than any
 * tool accepts (a 50 MB `write`). Kept whole, they would be persisted and re-sent with every later
 * request, so the loop replaces them with a small placeholder before the message is announced
 * (`message_end`), stored or appended, and the call gets an error result instead of running.
 */
import type { AssistantMessage, AssistantMessageEvent, ToolCall } from "@gyre/ai";
import type { AgentMessage } from "./types.js";

/** Default cap on one call's arguments, as JSON bytes: above any real edit, far above what fits a context window. */
export const DEFAULT_MAX_TOOL_ARGUMENT_BYTES = 1024 * 1024;

/** The key of the placeholder that replaces dropped arguments. */
export const DROPPED_ARGUMENTS_KEY = "gyreDroppedArguments";

/** What the placeholder records about the arguments it replaced. */
export type DroppedArguments = { tool: string; bytes: number; limitBytes: number; note: string };

/** Short scalar fields (a path, a flag) are kept beside the placeholder so UIs and the model see what the call was for. */
const KEPT_FIELD_CHARS = 200;
const KEPT_FIELDS = 8;

/** The size of a call's arguments as the model sent them: JSON bytes (the raw text when it was not valid JSON). */
export function measureToolArguments(toolCall: ToolCall): number {
  return utf8Length(toolCall.rawArguments ?? JSON.stringify(toolCall.arguments));
}

/** UTF-8 length without encoding a copy (this package runs outside Node too, so no Buffer). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    // A surrogate pair is 4 bytes: 2 per half.
    bytes += code < 0x80 ? 1 : code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 2 : 3;
  }
  return bytes;
}

/**
 * Returns the call unchanged when its arguments fit `limitBytes`, else a copy whose arguments are
 * short kept fields plus a `gyreDroppedArguments` record (and no `rawArguments`).
 */
export function capToolCall(toolCall: ToolCall, limitBytes: number): ToolCall {
  const bytes = measureToolArguments(toolCall);
  if (bytes <= limitBytes) return toolCall;
  const dropped: DroppedArguments = {
    tool: toolCall.name,
    bytes,
    limitBytes,
    note: `The arguments (${bytes} bytes of JSON) were above the ${limitBytes}-byte limit for one tool call, so gyre dropped them and did not run the call.`,
  };
  const { rawArguments: _raw, ...rest } = toolCall;
  return { ...rest, arguments: { ...keptFields(toolCall.arguments), [DROPPED_ARGUMENTS_KEY]: dropped } };
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

/** The drop record of arguments the loop capped, or undefined for ordinary arguments. */
export function readDroppedArguments(args: Record<string, unknown>): DroppedArguments | undefined {
  const value = args[DROPPED_ARGUMENTS_KEY];
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Partial<DroppedArguments>;
  if (typeof record.bytes !== "number" || typeof record.limitBytes !== "number") return undefined;
  return {
    tool: typeof record.tool === "string" ? record.tool : "",
    bytes: record.bytes,
    limitBytes: record.limitBytes,
    note: typeof record.note === "string" ? record.note : "",
  };
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

function keptFields(args: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  let count = 0;
  for (const [key, value] of Object.entries(args)) {
    if (count >= KEPT_FIELDS) break;
    if (key.length > KEPT_FIELD_CHARS || key === DROPPED_ARGUMENTS_KEY) continue;
    const short =
      typeof value === "number" ||
      typeof value === "boolean" ||
      (typeof value === "string" && value.length <= KEPT_FIELD_CHARS);
    if (!short) continue;
    kept[key] = value;
    count++;
  }
  return kept;
}

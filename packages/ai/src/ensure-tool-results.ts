import type { AssistantMessage, ToolCall, ToolResultMessage } from "./types.js";

/** What `ensureToolResults`' synthetic results say and when they are dated. */
export type EnsureToolResultsOptions = {
  /** The text of each synthetic result: a prompt saying what happened and what to do next. */
  text: string;
  /** Their timestamp; default: the timestamp of the message that made the call. */
  timestamp?: number;
};

/**
 * The one home of the rule "every tool call gets a result" (docs/design/messages-and-events.md#messages). A call counts as
 * answered when a result with its id follows it before the next assistant message; each other
 * call gets an error result with `options.text` (the call is never run), placed after the
 * results that directly follow its message, in call order. Returns the input array itself when
 * nothing is missing (allocating nothing: this runs before every model call), else a new array
 * of the input's own objects plus the synthetic results. Never drops, moves or changes a message.
 */
export function ensureToolResults<T extends { role: string }>(
  messages: readonly T[],
  options: EnsureToolResultsOptions,
): (T | ToolResultMessage)[] {
  // Where synthetic results go (the index they are inserted before) → the results to insert.
  let inserts: Map<number, ToolResultMessage[]> | undefined;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as T;
    if (!isAssistant(message)) continue;
    const missing = findUnansweredCalls(messages, index, message);
    if (missing.length === 0) continue;
    const timestamp = options.timestamp ?? message.timestamp;
    inserts ??= new Map();
    inserts.set(
      endOfResultRun(messages, index),
      missing.map((call) => createSyntheticResult(call, options.text, timestamp)),
    );
  }
  if (inserts === undefined) return messages as T[];
  const output: (T | ToolResultMessage)[] = [];
  for (let index = 0; index <= messages.length; index++) {
    const synthetic = inserts.get(index);
    if (synthetic) output.push(...synthetic);
    if (index < messages.length) output.push(messages[index] as T);
  }
  return output;
}

function isAssistant(message: { role: string }): message is AssistantMessage {
  return message.role === "assistant";
}

/** The calls of `messages[at]` that no result answers before the next assistant message, in call order. */
function findUnansweredCalls(messages: readonly { role: string }[], at: number, message: AssistantMessage): ToolCall[] {
  // Most assistant messages make no call, or are answered by results in call order right after
  // them (what the loop writes): both cost one pass over their blocks and results, no allocation.
  if (answeredInOrder(messages, at, message)) return [];
  const open = new Set<string>();
  for (const block of message.content) if (block.type === "toolCall") open.add(block.id);
  for (let index = at + 1; index < messages.length && open.size > 0; index++) {
    const next = messages[index] as { role: string };
    if (isAssistant(next)) break;
    if (next.role === "toolResult") open.delete((next as ToolResultMessage).toolCallId);
  }
  if (open.size === 0) return [];
  return message.content.filter((block): block is ToolCall => block.type === "toolCall" && open.has(block.id));
}

/** Whether the results right after `messages[at]` answer each of its calls, in call order (or it made none). */
function answeredInOrder(messages: readonly { role: string }[], at: number, message: AssistantMessage): boolean {
  let next = at + 1;
  for (const block of message.content) {
    if (block.type !== "toolCall") continue;
    const result = messages[next++] as { role: string } | undefined;
    if (result?.role !== "toolResult" || (result as ToolResultMessage).toolCallId !== block.id) return false;
  }
  return true;
}

/** The index just past the tool results that directly follow `messages[at]`. */
function endOfResultRun(messages: readonly { role: string }[], at: number): number {
  let index = at + 1;
  while (index < messages.length && (messages[index] as { role: string }).role === "toolResult") index++;
  return index;
}

function createSyntheticResult(call: ToolCall, text: string, timestamp: number): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text }],
    isError: true,
    timestamp,
  };
}

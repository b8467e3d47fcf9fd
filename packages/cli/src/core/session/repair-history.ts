/**
 * History repair before the next model call: every tool call must have exactly one result
 * (DESIGN §2). A call whose result was never recorded (crash or kill mid-tool) gets a synthetic
 * error result that says so; the call itself is never re-run.
 */
import type { AgentMessage } from "@gyre/agent";
import type { AssistantMessage, ToolCall, ToolResultMessage } from "@gyre/ai";

/** The text the model sees for an interrupted call. */
export const INTERRUPTED_TOOL_RESULT =
  "This tool call was interrupted before it finished (the session ended or crashed) and was not re-run. " +
  "Its effects, if any, are unknown: check the current state before relying on it or repeating it.";

/** A synthetic error result for an interrupted tool call. */
export function createInterruptedToolResult(call: ToolCall, timestamp: number): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text: INTERRUPTED_TOOL_RESULT }],
    isError: true,
    timestamp,
  };
}

/** The tool calls of `message` that no result in `results` answers, in call order. */
export function findUnansweredToolCalls(message: AssistantMessage, results: Iterable<ToolResultMessage>): ToolCall[] {
  const answered = new Set<string>();
  for (const result of results) answered.add(result.toolCallId);
  return message.content.filter((block): block is ToolCall => block.type === "toolCall" && !answered.has(block.id));
}

/**
 * Returns the messages with a synthetic result after the results of each assistant message
 * whose tool calls are not all answered, and without tool results that answer no call (the
 * providers reject those). Returns the input array itself when nothing needed repair.
 */
export function repairToolResults(messages: AgentMessage[]): { messages: AgentMessage[]; repaired: number } {
  const output: AgentMessage[] = [];
  let repaired = 0;
  let changed = false;
  let index = 0;
  while (index < messages.length) {
    const message = messages[index] as AgentMessage;
    index++;
    if (message.role === "toolResult") {
      changed = true; // a result with no call right before it
      continue;
    }
    output.push(message);
    if (message.role !== "assistant") continue;
    const calls = toolCallsOf(message);
    if (calls.length === 0) continue;
    const results: ToolResultMessage[] = [];
    for (; index < messages.length; index++) {
      const next = messages[index] as AgentMessage;
      if (next.role !== "toolResult") break;
      const call = calls.indexOf(next.toolCallId);
      if (call < 0 || results.some((result) => result.toolCallId === next.toolCallId)) {
        changed = true;
        continue;
      }
      results.push(next);
      output.push(next);
    }
    if (results.length === calls.length) continue;
    for (const call of findUnansweredToolCalls(message, results)) {
      output.push(createInterruptedToolResult(call, message.timestamp));
      repaired++;
    }
  }
  return { messages: changed || repaired > 0 ? output : messages, repaired };
}

/** Ids of the tool calls of `message`. A plain loop: this runs for every assistant message on resume. */
function toolCallsOf(message: AssistantMessage): string[] {
  const ids: string[] = [];
  for (const block of message.content) if (block.type === "toolCall") ids.push(block.id);
  return ids;
}

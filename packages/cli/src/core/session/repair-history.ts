/**
 * History repair before the next model call: every tool call must have exactly one result
 * (docs/design/messages-and-events.md#messages). A call whose result was never recorded (crash or kill mid-tool) gets a synthetic
 * error result that says so (by `ensureToolResults` of @gyre/ai, the rule's one home); the call
 * itself is never re-run.
 */
import type { AgentMessage } from "@gyre/agent";
import { type AssistantMessage, ensureToolResults, type ToolResultMessage } from "@gyre/ai";

/** The text the model sees for an interrupted call. */
export const INTERRUPTED_TOOL_RESULT =
  "This tool call was interrupted before it finished (the session ended or crashed) and was not re-run. " +
  "Its effects, if any, are unknown: check the current state before relying on it or repeating it.";

/**
 * Returns the messages with a synthetic result after the results of each assistant message
 * whose tool calls are not all answered, and without tool results that answer no call (the
 * providers reject those). Returns the input array itself when nothing needed repair.
 */
export function repairToolResults(messages: AgentMessage[]): { messages: AgentMessage[]; repaired: number } {
  if (isWellPaired(messages)) return { messages, repaired: 0 };
  const output: AgentMessage[] = [];
  let changed = false;
  let index = 0;
  while (index < messages.length) {
    let message = messages[index] as AgentMessage;
    index++;
    if (message.role === "toolResult") {
      changed = true; // a result with no call right before it
      continue;
    }
    let renamed: Map<string, string[]> | undefined;
    if (message.role === "assistant") {
      const unique = makeCallIdsUnique(message);
      if (unique) ({ message, renamed } = unique);
      if (unique) changed = true;
    }
    output.push(message);
    if (message.role !== "assistant") continue;
    const calls = toolCallsOf(message);
    if (calls.length === 0) continue;
    const results: ToolResultMessage[] = [];
    for (; index < messages.length; index++) {
      let next = messages[index] as AgentMessage;
      if (next.role === "toolResult" && renamed?.has(next.toolCallId)) {
        // The k-th result for a repeated id answers the k-th call that had it.
        const ids = renamed.get(next.toolCallId) as string[];
        const id = ids.shift();
        if (id !== undefined) next = { ...next, toolCallId: id };
      }
      if (next.role !== "toolResult") break;
      const call = calls.indexOf(next.toolCallId);
      if (call < 0 || results.some((result) => result.toolCallId === next.toolCallId)) {
        changed = true;
        continue;
      }
      results.push(next);
      output.push(next);
    }
  }
  // What is left pairs each result with a call right before it; the calls still unanswered get theirs.
  const ensured = ensureToolResults(output, { text: INTERRUPTED_TOOL_RESULT });
  const repaired = ensured.length - output.length;
  return { messages: changed || repaired > 0 ? ensured : messages, repaired };
}

/**
 * Whether nothing needs repair: each assistant message's calls have distinct ids and are answered,
 * once each, by the results right after it, and no other result exists. Allocates nothing: it
 * runs over every message of a resumed session, where building the repaired copy cost more than
 * the reading.
 */
function isWellPaired(messages: readonly AgentMessage[]): boolean {
  let index = 0;
  while (index < messages.length) {
    const message = messages[index++] as AgentMessage;
    if (message.role === "toolResult") return false;
    if (message.role !== "assistant") continue;
    const content = message.content;
    let calls = 0;
    for (let at = 0; at < content.length; at++) {
      const block = content[at] as AssistantMessage["content"][number];
      if (block.type !== "toolCall") continue;
      calls++;
      if (callIndex(content, block.id, at) >= 0) return false;
    }
    for (let k = 0; k < calls; k++) {
      const next = messages[index + k];
      if (next?.role !== "toolResult" || callIndex(content, next.toolCallId, content.length) < 0) return false;
      for (let earlier = 0; earlier < k; earlier++)
        if ((messages[index + earlier] as ToolResultMessage).toolCallId === next.toolCallId) return false;
    }
    index += calls;
  }
  return true;
}

/** Index of the first tool call with `id` among `content`'s first `before` blocks, or -1. */
function callIndex(content: AssistantMessage["content"], id: string, before: number): number {
  for (let at = 0; at < before; at++) {
    const block = content[at] as AssistantMessage["content"][number];
    if (block.type === "toolCall" && block.id === id) return at;
  }
  return -1;
}

/**
 * Old sessions (written before ids were made unique on arrival) can hold one assistant message
 * whose tool calls share an id; providers reject that on every later request. Returns a copy
 * whose repeats get `<id>_<n>` (never an id already present), and for each original id the ids
 * its calls now have, in call order; undefined when the ids are already unique.
 */
function makeCallIdsUnique(
  message: AssistantMessage,
): { message: AssistantMessage; renamed: Map<string, string[]> } | undefined {
  const ids = toolCallsOf(message);
  if (new Set(ids).size === ids.length) return undefined;
  const taken = new Set(ids);
  const seen = new Set<string>();
  const renamed = new Map<string, string[]>();
  const content = message.content.map((block) => {
    if (block.type !== "toolCall") return block;
    let id = block.id;
    if (seen.has(id)) {
      let n = 2;
      while (taken.has(`${block.id}_${n}`)) n++;
      id = `${block.id}_${n}`;
      taken.add(id);
    }
    seen.add(block.id);
    renamed.set(block.id, [...(renamed.get(block.id) ?? []), id]);
    return id === block.id ? block : { ...block, id };
  });
  return { message: { ...message, content }, renamed };
}

/** Ids of the tool calls of `message`. A plain loop: this runs for every assistant message on resume. */
function toolCallsOf(message: AssistantMessage): string[] {
  const ids: string[] = [];
  for (const block of message.content) if (block.type === "toolCall") ids.push(block.id);
  return ids;
}

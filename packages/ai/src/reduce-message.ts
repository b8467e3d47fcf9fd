import type { AssistantMessage, AssistantMessageEvent } from "./types.js";

/**
 * A pure reducer that rebuilds the partial assistant message from stream events, for UIs that
 * want the whole message while deltas stream. Returns a new object when something changed.
 * `start` yields the initial message; terminal events yield the final message.
 */
export function reduceAssistantMessage(
  partial: AssistantMessage | undefined,
  event: AssistantMessageEvent,
): AssistantMessage | undefined {
  switch (event.type) {
    case "start":
      return structuredClone(event.message);
    case "done":
    case "error":
      return event.message;
    default:
      break;
  }
  if (!partial) return partial;
  const content = partial.content.slice();
  switch (event.type) {
    case "text_start":
      content[event.contentIndex] = { type: "text", text: "" };
      break;
    case "text_delta": {
      const block = content[event.contentIndex];
      if (block?.type === "text") content[event.contentIndex] = { ...block, text: block.text + event.delta };
      break;
    }
    case "text_end":
      content[event.contentIndex] = { type: "text", text: event.content };
      break;
    case "thinking_start":
      content[event.contentIndex] = { type: "thinking", thinking: "" };
      break;
    case "thinking_delta": {
      const block = content[event.contentIndex];
      if (block?.type === "thinking")
        content[event.contentIndex] = { ...block, thinking: block.thinking + event.delta };
      break;
    }
    case "thinking_end":
      content[event.contentIndex] = {
        type: "thinking",
        thinking: event.content,
        ...(event.signature !== undefined ? { signature: event.signature } : {}),
        ...(event.redacted ? { redacted: true } : {}),
      };
      break;
    case "toolcall_start":
      content[event.contentIndex] = { type: "toolCall", id: event.id, name: event.name, arguments: {} };
      break;
    case "toolcall_delta": {
      const block = content[event.contentIndex];
      if (block?.type === "toolCall") {
        const raw = (block.rawArguments ?? "") + event.delta;
        content[event.contentIndex] = { ...block, rawArguments: raw, arguments: parsePartialJson(raw) };
      }
      break;
    }
    case "toolcall_end":
      content[event.contentIndex] = event.toolCall;
      break;
    default: {
      const never: never = event;
      return never;
    }
  }
  return { ...partial, content };
}

/**
 * Best-effort parse of an incomplete JSON object (for showing streaming tool arguments).
 * Closes open strings, arrays and objects; returns `{}` when nothing usable is there yet.
 */
export function parsePartialJson(text: string): Record<string, unknown> {
  const closers: string[] = [];
  let inString = false;
  let escaped = false;
  for (const char of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (char === "\\") escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{") closers.push("}");
    else if (char === "[") closers.push("]");
    else if (char === "}" || char === "]") closers.pop();
  }
  let candidate = text;
  if (inString) candidate += escaped ? '\\"' : '"';
  candidate = candidate.replace(/[,:]\s*$/, "");
  candidate += closers.reverse().join("");
  for (const attempt of [candidate, candidate.replace(/,\s*"[^"]*"\s*(?=[}\]]+$)/, "")]) {
    try {
      const parsed: unknown = JSON.parse(attempt);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // try the next repair
    }
  }
  return {};
}

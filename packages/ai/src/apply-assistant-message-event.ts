import type { AssistantMessage, AssistantMessageEvent } from "./types.js";

/**
 * The one reducer of the event stream: applies one provider delta to a partial assistant message
 * in place, in constant time per event (strings are appended, nothing is re-parsed), so keeping a
 * live message for UIs stays linear in the response length. Start from a copy of the `start`
 * event's message (with its own content array); `start`, `done` and `error` change nothing. A streaming tool call keeps its argument text in `rawArguments` until its
 * `toolcall_end` replaces it with the parsed call; UIs may show it with `parsePartialJson`.
 */
export function applyAssistantMessageEvent(message: AssistantMessage, event: AssistantMessageEvent): void {
  const content = message.content;
  const index = "contentIndex" in event ? event.contentIndex : -1;
  const block = content[index];
  switch (event.type) {
    case "start":
    case "done":
    case "error":
      return;
    case "text_start":
      content[index] = { type: "text", text: "" };
      return;
    case "text_delta":
      if (block?.type === "text") block.text += event.delta;
      return;
    case "text_end":
      content[index] = {
        type: "text",
        text: event.content,
        ...(event.citations !== undefined ? { citations: event.citations } : {}),
      };
      return;
    case "thinking_start":
      content[index] = { type: "thinking", thinking: "" };
      return;
    case "thinking_delta":
      if (block?.type === "thinking") block.thinking += event.delta;
      return;
    case "thinking_end":
      content[index] = {
        type: "thinking",
        thinking: event.content,
        ...(event.signature !== undefined ? { signature: event.signature } : {}),
        ...(event.redacted ? { redacted: true } : {}),
      };
      return;
    case "toolcall_start":
      content[index] = { type: "toolCall", id: event.id, name: event.name, arguments: {} };
      return;
    case "toolcall_delta":
      if (block?.type === "toolCall") block.rawArguments = (block.rawArguments ?? "") + event.delta;
      return;
    case "toolcall_end":
      content[index] = event.toolCall;
      return;
    case "server_tool_call_start":
      content[index] = { type: "serverToolCall", id: event.id, name: event.name, input: {} };
      return;
    case "server_tool_result_start":
      content[index] = { type: "serverToolResult", toolCallId: event.toolCallId, name: event.name, results: [] };
      return;
    case "server_tool_call_end":
    case "server_tool_result_end":
      content[index] = event.content;
      return;
    default: {
      const never: never = event;
      throw new Error(`Unknown stream event ${JSON.stringify(never)}`);
    }
  }
}

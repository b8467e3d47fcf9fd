/**
 * A loaded session's conversation as the `session/update`s an editor would have seen live
 * (docs/acp.md): user and agent message chunks, thoughts, and each tool call with its final
 * status and output, in order.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { AgentMessage } from "@gyre/agent";
import { resultText, startedToolCall, textContent } from "./acp-tool-calls.js";

export function historyUpdates(messages: readonly AgentMessage[], cwd: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (const message of messages) {
    if (!("role" in message)) continue;
    if (message.role === "user") {
      const blocks =
        typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
      for (const block of blocks) {
        if (block.type === "text" && block.text)
          updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: block.text } });
        if (block.type === "image")
          updates.push({
            sessionUpdate: "user_message_chunk",
            content: { type: "image", data: block.data, mimeType: block.mimeType },
          });
      }
    } else if (message.role === "assistant") {
      for (const block of message.content) {
        if (block.type === "text" && block.text)
          updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: block.text } });
        else if (block.type === "thinking" && block.thinking)
          updates.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: block.thinking } });
        else if (block.type === "toolCall")
          updates.push({ sessionUpdate: "tool_call", ...startedToolCall(block.id, block.name, block.arguments, cwd) });
      }
    } else if (message.role === "toolResult") {
      updates.push({
        sessionUpdate: "tool_call_update",
        toolCallId: message.toolCallId,
        status: message.isError ? "failed" : "completed",
        content: textContent(resultText(message)),
      });
    }
  }
  return updates;
}

/** The prompt that asks a model to summarise the older part of a conversation. */
import type { AgentMessage } from "@gyre/agent";
import { convertServerToolBlockToText } from "@gyre/ai";

/** Tool output longer than this is shortened in the transcript the summariser reads. */
const MAX_TOOL_RESULT_CHARS = 2_000;

export const SUMMARY_SYSTEM_PROMPT = `You write the hand-over summary of a coding agent's conversation. The agent will continue the work from your summary alone, without the messages you read, so leave out nothing it needs and nothing it does not.

Rules:
- Copy the user's explicit instructions, constraints and preferences VERBATIM, in quotes. Never paraphrase, soften or merge them.
- State the current goal as the user last put it.
- Record decisions made and why, what was tried and failed, and the state of the work.
- List every file read and every file created or modified, with what changed.
- Be concrete: names, paths, commands, error messages, numbers.

Answer in Markdown with these sections:
## Goal
## User instructions and constraints (verbatim)
## Decisions
## Progress
## Files read and modified
## Next steps`;

/** The transcript the summariser reads: one block per message, tool output shortened. */
export function serialiseConversation(messages: AgentMessage[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "user":
        parts.push(`[user]\n${textOf(message.content)}`);
        break;
      case "assistant":
        for (const block of message.content) {
          if (block.type === "text" && block.text.trim() !== "") parts.push(`[assistant]\n${block.text}`);
          else if (block.type === "toolCall")
            parts.push(`[assistant tool call] ${block.name}(${JSON.stringify(block.arguments)})`);
          // What the provider searched and found stays in the summary's view, as it would for another model.
          else if (block.type === "serverToolCall" || block.type === "serverToolResult")
            parts.push(`[assistant] ${convertServerToolBlockToText(block)}`);
        }
        break;
      case "toolResult":
        parts.push(
          `[tool result: ${message.toolName}${message.isError ? ", error" : ""}]\n${shorten(textOf(message.content))}`,
        );
        break;
      case "custom":
        break; // extension messages are UI data unless mapped; the summariser need not see them
      default: {
        const unexpected: never = message;
        throw new Error(`unknown message role in ${JSON.stringify(unexpected)}`);
      }
    }
  }
  return parts.join("\n\n");
}

function textOf(content: string | { type: string; text?: string }[]): string {
  if (typeof content === "string") return content;
  return content.map((block) => (block.type === "text" ? (block.text ?? "") : `[${block.type}]`)).join("\n");
}

function shorten(text: string): string {
  if (text.length <= MAX_TOOL_RESULT_CHARS) return text;
  return `${text.slice(0, MAX_TOOL_RESULT_CHARS)}\n[… ${text.length - MAX_TOOL_RESULT_CHARS} more characters]`;
}

/** The user message of the summarisation request. */
export function buildSummaryRequest(options: {
  conversation: string;
  previousSummary?: string;
  focus?: string;
}): string {
  const parts: string[] = [];
  if (options.previousSummary !== undefined)
    parts.push(
      `<previous-summary>\n${options.previousSummary}\n</previous-summary>\n\nThe conversation below continues from this summary. Write one summary that covers both; keep every instruction from the previous summary.`,
    );
  parts.push(`<conversation>\n${options.conversation}\n</conversation>`);
  if (options.focus !== undefined && options.focus.trim() !== "")
    parts.push(`The user asks this summary to focus on: ${options.focus.trim()}`);
  parts.push("Write the summary now, following the rules and sections.");
  return parts.join("\n\n");
}

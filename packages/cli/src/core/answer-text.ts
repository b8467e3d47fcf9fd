import type { AssistantMessage } from "@gyre/ai";

/** The text blocks of an assistant message, one per line, trimmed (thinking and tool calls left out). */
export function answerText(message: AssistantMessage): string {
  return message.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n")
    .trim();
}

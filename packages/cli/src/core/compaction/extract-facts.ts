/**
 * Facts a compaction keeps without trusting the model: the user's own words and the files the
 * tools read and changed, taken straight from the summarised messages.
 */
import type { AgentMessage } from "@gyre/agent";
import type { CompactionDetails } from "../session/types.js";
import { findLatestTodos, formatTodoReminder } from "../tools/todo-tool.js";

/** A single message longer than this is kept by its head and tail (pasted logs, not instructions). */
export const MAX_VERBATIM_MESSAGE_CHARS = 8_000;

const readTools = new Set(["read"]);
const modifyTools = new Set(["write", "edit"]);

/** The text of every user message, in order; images are noted, very long texts elided in the middle. */
export function extractUserMessages(messages: AgentMessage[]): string[] {
  const texts: string[] = [];
  for (const message of messages) {
    if (message.role !== "user") continue;
    const content = message.content;
    const text =
      typeof content === "string"
        ? content
        : content.map((block) => (block.type === "text" ? block.text : "[image]")).join("\n");
    if (text.trim() !== "") texts.push(elideMiddle(text));
  }
  return texts;
}

function elideMiddle(text: string): string {
  if (text.length <= MAX_VERBATIM_MESSAGE_CHARS) return text;
  const half = MAX_VERBATIM_MESSAGE_CHARS / 2;
  const cut = text.length - 2 * half;
  return `${text.slice(0, half)}\n[… ${cut} characters of this message elided …]\n${text.slice(-half)}`;
}

/** Paths passed to read, write and edit tool calls, in first-seen order. */
export function extractFileOperations(messages: AgentMessage[]): { readFiles: string[]; modifiedFiles: string[] } {
  const read = new Set<string>();
  const modified = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) {
      if (block.type !== "toolCall") continue;
      const path = block.arguments.path ?? block.arguments.file_path;
      if (typeof path !== "string" || path === "") continue;
      if (readTools.has(block.name)) read.add(path);
      else if (modifyTools.has(block.name)) modified.add(path);
    }
  }
  return { readFiles: [...read], modifiedFiles: [...modified] };
}

/** Adds this compaction's facts to those of the previous one; a modified file is not also listed as read. */
export function mergeDetails(previous: CompactionDetails | undefined, messages: AgentMessage[]): CompactionDetails {
  const files = extractFileOperations(messages);
  const modifiedFiles = unique([...(previous?.modifiedFiles ?? []), ...files.modifiedFiles]);
  const modifiedSet = new Set(modifiedFiles);
  const readFiles = unique([...(previous?.readFiles ?? []), ...files.readFiles]).filter(
    (path) => !modifiedSet.has(path),
  );
  const todos = findLatestTodos(messages) ?? previous?.todos;
  return {
    userMessages: [...(previous?.userMessages ?? []), ...extractUserMessages(messages)],
    readFiles,
    modifiedFiles,
    ...(todos === undefined ? {} : { todos }),
  };
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** The fixed sections appended to the model's summary. */
export function formatDetails(details: CompactionDetails): string {
  const parts: string[] = [];
  if (details.userMessages.length > 0) {
    parts.push("## The user's messages so far (verbatim, oldest first)");
    details.userMessages.forEach((text, index) => {
      parts.push(`<user-message n="${index + 1}">\n${text}\n</user-message>`);
    });
  }
  if (details.readFiles.length > 0) parts.push(`## Files read\n${details.readFiles.map((p) => `- ${p}`).join("\n")}`);
  if (details.modifiedFiles.length > 0)
    parts.push(`## Files modified\n${details.modifiedFiles.map((p) => `- ${p}`).join("\n")}`);
  const reminder = formatTodoReminder(details.todos ?? []);
  if (reminder !== undefined) parts.push(`## Todo list\n${reminder}`);
  return parts.join("\n\n");
}

/**
 * Token estimates without a tokenizer: about four characters per token, which errs high for
 * English prose and code. Good enough to decide when to compact and where to cut.
 */
import type { AgentMessage } from "@gyre/agent";
import type { Usage } from "@gyre/ai";
import type { SessionEntry } from "../session/types.js";

const CHARS_PER_TOKEN = 4;
/** A flat estimate per image; providers charge roughly this for a typical screenshot. */
const IMAGE_TOKENS = 1200;

/** Estimated tokens of one message as the model would receive it. */
export function estimateMessageTokens(message: AgentMessage): number {
  let chars = 0;
  let images = 0;
  const content = message.content;
  if (typeof content === "string") chars += content.length;
  else
    for (const block of content) {
      if (block.type === "text") chars += block.text.length;
      else if (block.type === "image") images++;
      else if (block.type === "thinking") chars += block.thinking.length;
      // Search results go back whole (encrypted page content included) and are billed as input.
      else if (block.type === "serverToolCall" || block.type === "serverToolResult")
        chars += JSON.stringify(block).length;
      else chars += block.name.length + JSON.stringify(block.arguments).length;
    }
  return Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKENS;
}

/** Estimated tokens of a message list (the context sent to the model, without system prompt). */
export function estimateContextTokens(messages: AgentMessage[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}

/** Estimated tokens an entry adds to the context; entries the model never sees count 0. */
export function estimateEntryTokens(entry: SessionEntry): number {
  if (entry.type === "message") return estimateMessageTokens(entry.message);
  if (entry.type === "branch_summary" || entry.type === "compaction")
    return Math.ceil(entry.summary.length / CHARS_PER_TOKEN);
  return 0;
}

/** The context size a provider reported for a call: everything it read plus what it wrote. */
export function contextTokensFromUsage(usage: Usage): number {
  return usage.input + usage.cacheRead + usage.cacheWrite + usage.output;
}

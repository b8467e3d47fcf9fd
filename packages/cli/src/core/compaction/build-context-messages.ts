/**
 * Turns a branch of the session tree into the messages sent to the model. After a compaction the
 * model sees its summary (as a user message with a clear prefix) and then the kept entries; the
 * summarised entries stay in the file but are no longer sent.
 */
import type { AgentMessage } from "@gyre/agent";
import type { UserMessage } from "@gyre/ai";
import { repairToolResults } from "../session/repair-history.js";
import type { CompactionEntry, SessionEntry } from "../session/types.js";

/** Starts the user message that carries a compaction summary. */
export const COMPACTION_SUMMARY_PREFIX =
  "[Context compacted] The earlier part of this conversation was summarised to fit the context window. " +
  "Summary of it:\n\n";
/** Starts the user message that carries the summary of an abandoned branch. */
export const BRANCH_SUMMARY_PREFIX =
  "[Branch summary] The conversation came back here from another branch. What happened there:\n\n";

/** Index of the last compaction entry of `branch`, or -1. */
export function findLastCompaction(branch: SessionEntry[]): number {
  for (let index = branch.length - 1; index >= 0; index--) if (branch[index]?.type === "compaction") return index;
  return -1;
}

/**
 * The messages for the model, root to leaf. Entries the model never sees (labels, names,
 * custom data, model changes) are left out, and tool calls without a result get a synthetic
 * "interrupted" result so the history is always valid for the provider.
 */
export function buildContextMessages(branch: SessionEntry[]): AgentMessage[] {
  const messages: AgentMessage[] = [];
  const compactionIndex = findLastCompaction(branch);
  let start = 0;
  if (compactionIndex >= 0) {
    const compaction = branch[compactionIndex] as CompactionEntry;
    messages.push(summaryMessage(COMPACTION_SUMMARY_PREFIX + compaction.summary, compaction.timestamp));
    const kept = branch.findIndex((entry) => entry.id === compaction.firstKeptEntryId);
    start = kept >= 0 && kept < compactionIndex ? kept : compactionIndex + 1;
  }
  for (let index = start; index < branch.length; index++) {
    const entry = branch[index] as SessionEntry;
    if (entry.type === "message") messages.push(entry.message);
    else if (entry.type === "branch_summary")
      messages.push(summaryMessage(BRANCH_SUMMARY_PREFIX + entry.summary, entry.timestamp));
  }
  return repairToolResults(messages).messages;
}

function summaryMessage(text: string, timestamp: string): UserMessage {
  const time = Date.parse(timestamp);
  return { role: "user", content: text, timestamp: Number.isNaN(time) ? 0 : time };
}

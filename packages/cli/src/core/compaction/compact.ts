/**
 * Compaction: the model summarises the older part of the current branch; the newest turns stay
 * as they are. The result is the data of a `compaction` entry; nothing is deleted from the file.
 */
import type { AgentMessage } from "@gyre/agent";
import { GyreError, type Model, type StreamFunction, stream } from "@gyre/ai";
import { CliError } from "../errors.js";
import type { CompactionData, CompactionEntry, SessionEntry } from "../session/types.js";
import { buildContextMessages, findLastCompaction } from "./build-context-messages.js";
import { estimateContextTokens } from "./estimate-tokens.js";
import { formatDetails, mergeDetails } from "./extract-facts.js";
import { findCutPoint } from "./find-cut-point.js";
import { buildSummaryRequest, SUMMARY_SYSTEM_PROMPT, serialiseConversation } from "./summarise-prompt.js";

export type CompactOptions = {
  /** The current branch, root to leaf (`SessionManager.getBranch()`). */
  branchEntries: SessionEntry[];
  /** The model that writes the summary (usually the session's model). */
  model: Model;
  apiKey?: string;
  /** What the user wants the summary to focus on (manual `/compact <focus>`). */
  focus?: string;
  /** How much of the newest conversation to keep as it is, in estimated tokens. */
  keepRecentTokens: number;
  signal?: AbortSignal;
  /** Replaces @gyre/ai `stream` for the summary request. */
  streamFn?: StreamFunction;
  /** Cap on the summary's length. Default 8192 tokens or the model's maximum, whichever is lower. */
  maxSummaryTokens?: number;
};

/**
 * Summarises the branch up to a turn boundary and returns the compaction entry's data. The
 * summary is the model's text followed by sections computed here, not by the model: the user's
 * messages verbatim and the files read and modified (carried over from earlier compactions).
 * Throws a `CliError` when there is nothing to compact ("nothing_to_compact") or the model call
 * fails ("compaction_failed"), a `GyreError` ("aborted") when it is aborted; it never retries.
 */
export async function compact(options: CompactOptions): Promise<CompactionData> {
  const branch = options.branchEntries;
  const previousIndex = findLastCompaction(branch);
  const previous = previousIndex >= 0 ? (branch[previousIndex] as CompactionEntry) : undefined;
  const from = summarisableStart(branch, previousIndex, previous);
  const cut = findCutPoint(branch, { from, keepRecentTokens: options.keepRecentTokens });
  const firstKept = cut === undefined ? undefined : branch[cut];
  if (cut === undefined || firstKept === undefined || cut <= from)
    throw new CliError(
      "nothing_to_compact",
      "Nothing to compact yet: the conversation since the last compaction is one turn.",
    );
  const summarised = messagesOf(branch.slice(from, cut));
  const details = mergeDetails(previous?.details, summarised);
  const response = await (options.streamFn ?? stream)(
    options.model,
    {
      systemPrompt: SUMMARY_SYSTEM_PROMPT,
      messages: [
        {
          role: "user",
          content: buildSummaryRequest({
            conversation: serialiseConversation(summarised),
            ...(previous && { previousSummary: stripDetails(previous) }),
            ...(options.focus !== undefined && { focus: options.focus }),
          }),
          timestamp: Date.now(),
        },
      ],
    },
    {
      ...(options.apiKey !== undefined && { apiKey: options.apiKey }),
      ...(options.signal && { signal: options.signal }),
      maxTokens: options.maxSummaryTokens ?? Math.min(8_192, options.model.maxTokens),
    },
  ).result();
  if (response.stopReason === "error" || response.stopReason === "aborted") {
    const message = `Compaction failed: the summary request ended with ${response.errorMessage ?? response.stopReason}.`;
    if (response.stopReason === "aborted") throw new GyreError("aborted", message);
    throw new CliError("compaction_failed", message);
  }
  const modelText = response.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("")
    .trim();
  const appendix = formatDetails(details);
  return {
    summary: [modelText, appendix].filter((part) => part !== "").join("\n\n"),
    firstKeptEntryId: firstKept.id,
    tokensBefore: estimateContextTokens(buildContextMessages(branch)),
    details,
  };
}

/** Where the part not yet summarised starts: the previous compaction's first kept entry, or the root. */
function summarisableStart(branch: SessionEntry[], previousIndex: number, previous: CompactionEntry | undefined) {
  if (!previous) return 0;
  const kept = branch.findIndex((entry) => entry.id === previous.firstKeptEntryId);
  return kept >= 0 && kept < previousIndex ? kept : previousIndex + 1;
}

function messagesOf(entries: SessionEntry[]): AgentMessage[] {
  return entries.flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
}

/** The previous summary without its computed sections, which this compaction re-adds merged. */
function stripDetails(previous: CompactionEntry): string {
  if (!previous.details) return previous.summary;
  const appendix = formatDetails(previous.details);
  return appendix !== "" && previous.summary.endsWith(appendix)
    ? previous.summary.slice(0, -appendix.length).trim()
    : previous.summary;
}

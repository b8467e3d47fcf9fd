/**
 * Compaction: the model summarises the older part of the current branch; the newest turns stay
 * as they are. The result is the data of a `compaction` entry; nothing is deleted from the file.
 */
import type { AgentMessage } from "@gyre/agent";
import { createEmptyUsage, GyreError, type Model, type StreamFunction, stream, type Usage } from "@gyre/ai";
import { CliError } from "../errors.js";
import type { CompactionData, CompactionEntry, SessionEntry } from "../session/types.js";
import { buildContextMessages, findLastCompaction } from "./build-context-messages.js";
import { estimateContextTokens } from "./estimate-tokens.js";
import { formatDetails, mergeDetails } from "./extract-facts.js";
import { findCutPoint } from "./find-cut-point.js";
import { capDetails, chunkConversation, compactionBudget } from "./fit-to-window.js";
import { isContextOverflow } from "./is-context-overflow.js";
import { buildSummaryRequest, SUMMARY_SYSTEM_PROMPT } from "./summarise-prompt.js";

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
  /** Tokens kept free below the window for the next answer (default `DEFAULT_RESERVE_TOKENS`). */
  reserveTokens?: number;
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
  const budget = compactionBudget({
    contextWindow: options.model.contextWindow,
    maxOutputTokens: options.model.maxTokens,
    keepRecentTokens: options.keepRecentTokens,
    ...(options.reserveTokens !== undefined && { reserveTokens: options.reserveTokens }),
    ...(options.maxSummaryTokens !== undefined && { maxSummaryTokens: options.maxSummaryTokens }),
  });
  const previousIndex = findLastCompaction(branch);
  const previous = previousIndex >= 0 ? (branch[previousIndex] as CompactionEntry) : undefined;
  const from = summarisableStart(branch, previousIndex, previous);
  const cut = findCutPoint(branch, { from, keepRecentTokens: budget.keepRecentTokens });
  const firstKept = cut === undefined ? undefined : branch[cut];
  if (cut === undefined || firstKept === undefined || cut <= from)
    throw new CliError(
      "nothing_to_compact",
      "Nothing to compact yet: the conversation since the last compaction is one turn.",
    );
  const summarised = messagesOf(branch.slice(from, cut));
  const details = capDetails(mergeDetails(previous?.details, summarised), budget.detailsTokens);
  // A conversation larger than the window is summarised a chunk at a time, each summary
  // carried into the next request, so no summary request is itself too large.
  let summary = previous ? stripDetails(previous) : undefined;
  // What the summary requests cost is kept on the entry: money spent is never forgotten.
  const usage = createEmptyUsage();
  for (const chunk of chunkConversation(summarised, budget.inputTokens)) {
    const answer = await summariseChunk(options, budget.summaryTokens, chunk, summary);
    summary = answer.text;
    addUsage(usage, answer.usage);
  }
  const appendix = formatDetails(details);
  return {
    summary: [summary ?? "", appendix].filter((part) => part !== "").join("\n\n"),
    firstKeptEntryId: firstKept.id,
    tokensBefore: estimateContextTokens(buildContextMessages(branch)),
    details,
    usage,
  };
}

/** One summary request: `conversation` on top of the summary so far. Returns the model's text. */
async function summariseChunk(
  options: CompactOptions,
  maxTokens: number,
  conversation: string,
  previousSummary: string | undefined,
): Promise<{ text: string; usage: Usage }> {
  const response = await (options.streamFn ?? stream)(
    options.model,
    {
      systemPrompt: SUMMARY_SYSTEM_PROMPT,
      messages: [
        {
          role: "user",
          content: buildSummaryRequest({
            conversation,
            ...(previousSummary !== undefined && { previousSummary }),
            ...(options.focus !== undefined && { focus: options.focus }),
          }),
          timestamp: Date.now(),
        },
      ],
    },
    {
      ...(options.apiKey !== undefined && { apiKey: options.apiKey }),
      ...(options.signal && { signal: options.signal }),
      maxTokens,
    },
  ).result();
  if (response.stopReason === "error" && isContextOverflow(response)) {
    throw new CliError(
      "compaction_failed",
      `Compaction could not fit the window: the summary request was itself too long for ${options.model.id}'s ` +
        `${options.model.contextWindow}-token context (${response.errorMessage ?? "context overflow"}). Run /compact ` +
        "again with a smaller compaction.keepRecentTokens, or start a new session (gyre without -c) and paste what matters.",
    );
  }
  if (response.stopReason === "error" || response.stopReason === "aborted") {
    const message = `Compaction failed: the summary request ended with ${response.errorMessage ?? response.stopReason}.`;
    if (response.stopReason === "aborted") throw new GyreError("aborted", message);
    throw new CliError("compaction_failed", message);
  }
  const text = response.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("")
    .trim();
  return { text, usage: response.usage };
}

function addUsage(total: Usage, more: Usage): void {
  total.input += more.input;
  total.output += more.output;
  total.cacheRead += more.cacheRead;
  total.cacheWrite += more.cacheWrite;
  total.totalTokens += more.totalTokens;
  for (const key of ["input", "output", "cacheRead", "cacheWrite", "total"] as const) total.cost[key] += more.cost[key];
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

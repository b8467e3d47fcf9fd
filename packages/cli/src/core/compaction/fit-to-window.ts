/**
 * Budgets that keep a compaction inside the model's window: the summary plus the kept messages
 * must fit `contextWindow − reserve`, the summariser's own request must fit the window, and the
 * computed sections (the user's messages verbatim, file lists) must not grow without bound over
 * many compactions. All sizes are estimates at four characters per token, as elsewhere.
 */
import type { AgentMessage } from "@gyre/agent";
import type { CompactionDetails } from "../session/types.js";
import { DEFAULT_RESERVE_TOKENS } from "./should-compact.js";
import { serialiseConversation } from "./summarise-prompt.js";

const CHARS_PER_TOKEN = 4;
/** The summariser's system prompt and instructions, with room to spare. */
const REQUEST_OVERHEAD_TOKENS = 2_000;
/** At most this many paths per file list survive (the newest). */
const MAX_LISTED_FILES = 100;

export type CompactionBudget = {
  /** Cap on the summary the model writes. */
  summaryTokens: number;
  /** Cap on the computed sections appended to it. */
  detailsTokens: number;
  /** How much recent conversation may be kept as it is. */
  keepRecentTokens: number;
  /** Largest conversation text one summary request may carry. */
  inputTokens: number;
};

/**
 * The budget for a model with `contextWindow` (0 or less: unknown, the requested values stand).
 * The reserve is cut to a quarter of a small window so that something can be kept at all.
 */
export function compactionBudget(options: {
  contextWindow: number;
  maxOutputTokens: number;
  keepRecentTokens: number;
  reserveTokens?: number;
  maxSummaryTokens?: number;
}): CompactionBudget {
  const window = options.contextWindow;
  const requestedSummary = options.maxSummaryTokens ?? Math.min(8_192, options.maxOutputTokens);
  if (!(window > 0))
    return {
      summaryTokens: requestedSummary,
      detailsTokens: 16_000,
      keepRecentTokens: options.keepRecentTokens,
      inputTokens: Number.POSITIVE_INFINITY,
    };
  const reserve = Math.min(options.reserveTokens ?? DEFAULT_RESERVE_TOKENS, Math.floor(window / 4));
  const summaryTokens = Math.max(256, Math.min(requestedSummary, Math.floor(window / 8)));
  const detailsTokens = Math.max(256, Math.floor(window / 10));
  const room = window - reserve - summaryTokens - detailsTokens;
  return {
    summaryTokens,
    detailsTokens,
    keepRecentTokens: Math.max(1, Math.min(options.keepRecentTokens, room)),
    inputTokens: Math.max(1_000, window - summaryTokens - REQUEST_OVERHEAD_TOKENS - summaryTokens),
  };
}

/**
 * The details cut to `maxTokens`: the first user message (usually the task) and the newest ones
 * that fit stay verbatim; the ones between are replaced by one line saying how many were left out
 * and where they are. File lists keep their newest entries.
 */
export function capDetails(details: CompactionDetails, maxTokens: number): CompactionDetails {
  const budget = maxTokens * CHARS_PER_TOKEN;
  const messages = details.userMessages.filter((text) => !isElisionNote(text));
  const earlierElided = details.userMessages.reduce((sum, text) => sum + elidedCount(text), 0);
  const [first, ...rest] = messages;
  const kept: string[] = [];
  let used = first?.length ?? 0;
  for (let index = rest.length - 1; index >= 0; index--) {
    const text = rest[index] as string;
    if (used + text.length > budget) break;
    kept.unshift(text);
    used += text.length;
  }
  const dropped = rest.length - kept.length + earlierElided;
  const head = first === undefined ? [] : [first.length > budget ? `${first.slice(0, budget)}…` : first];
  return {
    userMessages: [...head, ...(dropped > 0 ? [elisionNote(dropped)] : []), ...kept],
    readFiles: details.readFiles.slice(-MAX_LISTED_FILES),
    modifiedFiles: details.modifiedFiles.slice(-MAX_LISTED_FILES),
    ...(details.todos === undefined ? {} : { todos: details.todos }),
  };
}

const NOTE_PATTERN = /^\[(\d+) earlier user messages are left out here/;

function elisionNote(count: number): string {
  return `[${count} earlier user messages are left out here to fit the context window; they remain, verbatim, in the session file]`;
}

function isElisionNote(text: string): boolean {
  return NOTE_PATTERN.test(text);
}

function elidedCount(text: string): number {
  return Number(NOTE_PATTERN.exec(text)?.[1] ?? 0);
}

/**
 * The summarised messages serialised in chunks of at most `maxTokens` each, in order; a single
 * message larger than a chunk is cut to fit (its head kept, with a marker).
 */
export function chunkConversation(messages: AgentMessage[], maxTokens: number): string[] {
  const limit = Number.isFinite(maxTokens) ? maxTokens * CHARS_PER_TOKEN : Number.POSITIVE_INFINITY;
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (const message of messages) {
    let text = serialiseConversation([message]);
    if (text.length > limit) text = `${text.slice(0, limit - 80)}\n[… ${text.length - limit + 80} characters cut]`;
    if (size + text.length > limit && current.length > 0) {
      chunks.push(current.join("\n\n"));
      current = [];
      size = 0;
    }
    current.push(text);
    size += text.length + 2;
  }
  if (current.length > 0) chunks.push(current.join("\n\n"));
  return chunks;
}

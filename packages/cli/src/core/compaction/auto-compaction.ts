import type { AgentMessage } from "@gyre/agent";
import type { Model, StreamFunction } from "@gyre/ai";
import { describeError } from "@gyre/ai";
import { CliError } from "../errors.js";
import type { SessionManager } from "../session/session-manager.js";
import type { CompactionReason, SessionEvent } from "../session-events.js";
import { compact } from "./compact.js";
import { contextTokensFromUsage, estimateContextTokens } from "./estimate-tokens.js";
import { isContextOverflow } from "./is-context-overflow.js";
import { DEFAULT_KEEP_RECENT_TOKENS, DEFAULT_RESERVE_TOKENS, shouldCompact } from "./should-compact.js";

/** Longest a summary request may take before it counts as failed. */
const COMPACTION_TIMEOUT_MS = 300_000;

export type AutoCompactionOptions = {
  /** Default true: compact before a prompt near the window and once after a context overflow. */
  enabled?: boolean;
  reserveTokens?: number;
  keepRecentTokens?: number;
};

/**
 * The session's compaction policy: when to compact on its own (the threshold before a run, one
 * overflow retry after it) and how (summarise the branch into a `compaction` entry and rebuild
 * the context from it). Holds one number of state: where the context was last replaced.
 */
export class AutoCompaction {
  /**
   * Message count when the context was last replaced (load, resume, compaction): usage reported
   * before then may describe a context that no longer exists.
   */
  private replacedAt: number;
  private inProgress = false;

  constructor(
    private readonly options: AutoCompactionOptions,
    messageCount: number,
  ) {
    this.replacedAt = messageCount;
  }

  get enabled(): boolean {
    return this.options.enabled !== false;
  }

  /** Whether a compaction is running now. */
  get running(): boolean {
    return this.inProgress;
  }

  /**
   * Compacts with `compaction_start`/`compaction_end` events around it and hands the new context
   * to `apply`. Returns whether it compacted; a failure (or an abort through `signal`) is reported
   * by `compaction_end` with `error`, never thrown.
   */
  async run(options: {
    reason: CompactionReason;
    focus?: string;
    signal: AbortSignal;
    store: SessionManager;
    model: Model;
    apiKey: string | undefined;
    streamFn?: StreamFunction;
    emit(event: SessionEvent): void;
    apply(messages: AgentMessage[]): Promise<void>;
  }): Promise<boolean> {
    const { reason, emit } = options;
    this.inProgress = true;
    emit({ type: "compaction_start", reason });
    try {
      const done = await this.compact(options);
      await options.apply(done.messages);
      emit({ type: "compaction_end", reason, tokensBefore: done.tokensBefore });
      return true;
    } catch (error) {
      emit({ type: "compaction_end", reason, error: describeError(error) });
      return false;
    } finally {
      this.inProgress = false;
    }
  }

  /** Records that the context was replaced and now holds `messageCount` messages. */
  markReplaced(messageCount: number): void {
    this.replacedAt = messageCount;
  }

  /** Whether the next call would send more than the window minus the reserve (false when disabled). */
  isNearWindow(messages: readonly AgentMessage[], model: Model): boolean {
    if (!this.enabled) return false;
    const reserveTokens = this.options.reserveTokens ?? DEFAULT_RESERVE_TOKENS;
    return shouldCompact({ contextTokens: this.currentContextTokens(messages), model, reserveTokens });
  }

  /** Whether the run just ended with the provider refusing the context as too long (false when disabled). */
  endedInOverflow(messages: readonly AgentMessage[]): boolean {
    const last = messages.at(-1);
    return this.enabled && last?.role === "assistant" && isContextOverflow(last);
  }

  /**
   * Summarises the older part of `store`'s branch into a `compaction` entry and returns the
   * context to continue with. Throws a `CliError` ("nothing_to_compact", "compaction_failed") or
   * the abort error when `signal` fires; the store is unchanged then.
   */
  async compact(options: {
    store: SessionManager;
    model: Model;
    apiKey: string | undefined;
    streamFn?: StreamFunction;
    focus?: string;
    signal: AbortSignal;
  }): Promise<{ messages: AgentMessage[]; tokensBefore: number }> {
    const data = await compact({
      branchEntries: options.store.getBranch(),
      model: options.model,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      ...(options.focus ? { focus: options.focus } : {}),
      ...(options.streamFn ? { streamFn: options.streamFn } : {}),
      keepRecentTokens: this.options.keepRecentTokens ?? DEFAULT_KEEP_RECENT_TOKENS,
      signal: AbortSignal.any([options.signal, AbortSignal.timeout(COMPACTION_TIMEOUT_MS)]),
    });
    if (options.signal.aborted) throw new CliError("compaction_failed", "Compaction was aborted.");
    options.store.appendCompaction(data);
    const messages = options.store.buildContext().messages;
    // A failed answer at the end (the overflow itself) is not history to continue from.
    const last = messages.at(-1);
    if (last?.role === "assistant" && (last.stopReason === "error" || last.stopReason === "aborted")) messages.pop();
    this.replacedAt = messages.length;
    return { messages, tokensBefore: data.tokensBefore };
  }

  /**
   * Tokens the next call will send: the last call's reported usage, or — right after a
   * compaction, before any new answer — an estimate of the compacted context (the old usage
   * describes the context before compaction and would trigger another one).
   */
  private currentContextTokens(messages: readonly AgentMessage[]): number {
    for (let index = messages.length - 1; index >= this.replacedAt; index--) {
      const message = messages[index];
      if (message?.role !== "assistant") continue;
      const seen = contextTokensFromUsage(message.usage);
      if (seen > 0) return seen;
    }
    return estimateContextTokens([...messages]);
  }
}

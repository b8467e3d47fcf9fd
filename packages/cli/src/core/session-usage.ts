import type { AgentEvent, AgentMessage } from "@gyre/agent";
import type { SessionManager } from "./session/session-manager.js";
import { computeSessionStats, type SessionStats, UsageLedger } from "./session-stats.js";
import { RunningSubagentUsage, taskUsageOf } from "./subagents/subagent-usage.js";
import type { AgentSpend, TreeBudget } from "./subagents/tree-budget.js";

/** What a request's tree of agents spent, in total and per agent. */
export type TreeSpend = { total: ReturnType<TreeBudget["total"]>; agents: AgentSpend[] };

/**
 * A session's spend accounting: the totals of every call its file records (built from the file
 * on first use, then kept up as messages end) plus what subagents still at work spent. One
 * `AgentSession` owns one; it never reads the agent itself, the session hands it what it needs.
 */
export class SessionUsage {
  private ledger: UsageLedger | undefined;
  private readonly runningSubagents = new RunningSubagentUsage();

  /** Feeds a subagent's event, so its spend shows before its task result arrives. */
  observeSubagent(parentToolCallId: string, event: AgentEvent): void {
    this.runningSubagents.observe(parentToolCallId, event);
  }

  /**
   * Counts a message that just ended (and was appended to the file): an answer's usage, or a
   * task result's subagent totals, which replace that task's live sum.
   */
  recordMessage(message: AgentMessage): void {
    if (message.role === "assistant") this.ledger?.add(message.usage);
    if (message.role !== "toolResult") return;
    const running = this.runningSubagents.take(message.toolCallId);
    this.ledger?.add(taskUsageOf(message) ?? running);
  }

  /** Drops the totals so the next `stats` rebuilds them from the file (a compaction or a switched store). */
  forgetTotals(): void {
    this.ledger = undefined;
  }

  /** Counts over `messages` (the current context) with the totals of every call `store` records. */
  stats(store: SessionManager, messages: readonly AgentMessage[], contextTokens: number): SessionStats {
    this.ledger ??= UsageLedger.fromEntries(store.getEntries());
    return computeSessionStats(messages, {
      ledger: this.ledger,
      running: this.runningSubagents.total(),
      contextTokens,
    });
  }
}

/** The spend of the current request's tree (undefined without a tree budget). */
export function treeSpendOf(budget: TreeBudget | undefined): TreeSpend | undefined {
  return budget === undefined ? undefined : { total: budget.total(), agents: budget.breakdown() };
}

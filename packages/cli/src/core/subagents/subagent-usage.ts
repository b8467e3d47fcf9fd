/**
 * What subagents spent, for the session's totals (the footer, /cost, `get_session_stats`): a
 * finished task's usage is kept in its tool result (`details.usage`, so a session read back
 * from its file counts it), and a running one's is summed live from its events until its result
 * arrives. Nothing is counted twice: a task's live sum is dropped when its result comes.
 */
import type { AgentEvent, AgentMessage } from "@gyre/agent";
import { createEmptyUsage, type Usage } from "@gyre/ai";

/** An empty usage to add to. */
export function createUsageTotals(): Usage {
  return createEmptyUsage();
}

/** Adds `usage` (if any) to `into`, tokens and costs alike. */
export function addUsage(into: Usage, usage: Usage | undefined): void {
  if (usage === undefined) return;
  into.input += usage.input;
  into.output += usage.output;
  into.cacheRead += usage.cacheRead;
  into.cacheWrite += usage.cacheWrite;
  into.totalTokens += usage.totalTokens;
  into.cost.input += usage.cost.input;
  into.cost.output += usage.cost.output;
  into.cost.cacheRead += usage.cost.cacheRead;
  into.cost.cacheWrite += usage.cost.cacheWrite;
  into.cost.total += usage.cost.total;
}

/** The usage a `task` tool result records for its subagent (and the subagents it started); undefined for any other message. */
export function taskUsageOf(message: AgentMessage): Usage | undefined {
  if (message.role !== "toolResult" || message.toolName !== "task") return undefined;
  const usage = (message.details as { usage?: unknown } | undefined)?.usage;
  return isUsage(usage) ? usage : undefined;
}

function isUsage(value: unknown): value is Usage {
  if (typeof value !== "object" || value === null) return false;
  const { input, output, cacheRead, cacheWrite, totalTokens, cost } = value as Record<string, unknown>;
  return (
    [input, output, cacheRead, cacheWrite, totalTokens].every((field) => typeof field === "number") &&
    typeof (cost as { total?: unknown } | undefined)?.total === "number"
  );
}

/** Sums the spend of the subagents still running, keyed by the task call that started each. */
export class RunningSubagentUsage {
  private readonly running = new Map<string, Usage>();

  /** Feeds a subagent's event (its `parentToolCallId` names its task call). */
  observe(parentToolCallId: string, event: AgentEvent): void {
    if (event.type !== "message_end") return;
    const { message } = event;
    if (message.role === "assistant") this.add(parentToolCallId, message.usage);
    if (message.role !== "toolResult") return;
    // A nested task ended: its live sum gives way to its result, part of the subagent that called it.
    this.running.delete(message.toolCallId);
    this.add(parentToolCallId, taskUsageOf(message));
  }

  /**
   * A task call's result reached the main agent: its live sum is dropped and returned (the
   * result's own usage replaces it; an aborted task's result has none, so the sum is all there is).
   */
  take(toolCallId: string): Usage | undefined {
    const usage = this.running.get(toolCallId);
    this.running.delete(toolCallId);
    return usage;
  }

  /** Forgets every running sum (a new conversation). */
  clear(): void {
    this.running.clear();
  }

  /** What the running subagents spent so far. */
  total(): Usage {
    const total = createUsageTotals();
    for (const usage of this.running.values()) addUsage(total, usage);
    return total;
  }

  private add(key: string, usage: Usage | undefined): void {
    if (usage === undefined) return;
    let entry = this.running.get(key);
    if (entry === undefined) {
      entry = createUsageTotals();
      this.running.set(key, entry);
    }
    addUsage(entry, usage);
  }
}

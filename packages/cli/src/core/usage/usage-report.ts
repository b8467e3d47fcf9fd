/**
 * Usage over many model calls, grouped the ways `gyre stats` and `/usage` show it: by model, by
 * day, by project and by agent (the main agent or a subagent by its name), with the cache-hit
 * ratio of each group. docs/usage-and-telemetry.md describes the figures.
 */
import type { Usage } from "@gyre/ai";

/** One model call as a session file records it. */
export type UsageCall = {
  /** Milliseconds since the epoch, when the answer ended. */
  timestamp: number;
  /** "provider/model". */
  model: string;
  /** The session's working directory. */
  project: string;
  /** "main", or the subagent's name. */
  agent: string;
  sessionId: string;
  usage: Usage;
};

/** Token and cost sums of a group of calls. */
export type UsageTotals = {
  calls: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  /** USD. */
  cost: number;
  /** cacheRead / (input + cacheRead + cacheWrite): the share of prompt tokens served from cache (0 without prompt tokens). */
  cacheHitRatio: number;
};

export type UsageGroup = UsageTotals & { key: string };

/** What `gyre stats --json` prints. */
export type UsageReport = {
  /** ISO time of the earliest call counted, when `--since` limited it. */
  since?: string;
  sessions: number;
  subagentSessions: number;
  totals: UsageTotals;
  /** Averages over the calls (a turn is one model call). */
  perTurn: { input: number; output: number; cacheRead: number; cacheWrite: number; totalTokens: number; cost: number };
  byModel: UsageGroup[];
  /** Days in UTC, oldest first. */
  byDay: UsageGroup[];
  byProject: UsageGroup[];
  byAgent: UsageGroup[];
  /** Session files with a line that could not be read; their other lines count. */
  unreadableLines: number;
};

function emptyTotals(): UsageTotals {
  return { calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0, cacheHitRatio: 0 };
}

function addTo(totals: UsageTotals, usage: Usage): void {
  totals.calls += 1;
  totals.input += usage.input;
  totals.output += usage.output;
  totals.cacheRead += usage.cacheRead;
  totals.cacheWrite += usage.cacheWrite;
  totals.totalTokens += usage.totalTokens;
  totals.cost += usage.cost.total;
}

function finish<T extends UsageTotals>(totals: T): T {
  const prompt = totals.input + totals.cacheRead + totals.cacheWrite;
  totals.cacheHitRatio = prompt === 0 ? 0 : totals.cacheRead / prompt;
  return totals;
}

/** The UTC day of a timestamp, "YYYY-MM-DD". */
export function dayOf(timestamp: number): string {
  return new Date(timestamp).toISOString().slice(0, 10);
}

/** Sums calls as they are read; `report()` gives the groups. Never keeps the calls themselves. */
export class UsageAggregator {
  private readonly totals = emptyTotals();
  private readonly groups = {
    byModel: new Map<string, UsageGroup>(),
    byDay: new Map<string, UsageGroup>(),
    byProject: new Map<string, UsageGroup>(),
    byAgent: new Map<string, UsageGroup>(),
  };
  private readonly sessionIds = new Set<string>();
  private readonly subagentSessionIds = new Set<string>();
  unreadableLines = 0;

  /** Notes a session that was read (counted even when it made no call in the period). */
  addSession(sessionId: string, isSubagent: boolean): void {
    (isSubagent ? this.subagentSessionIds : this.sessionIds).add(sessionId);
  }

  add(call: UsageCall): void {
    addTo(this.totals, call.usage);
    this.addToGroup(this.groups.byModel, call.model, call.usage);
    this.addToGroup(this.groups.byDay, dayOf(call.timestamp), call.usage);
    this.addToGroup(this.groups.byProject, call.project, call.usage);
    this.addToGroup(this.groups.byAgent, call.agent, call.usage);
  }

  private addToGroup(groups: Map<string, UsageGroup>, key: string, usage: Usage): void {
    let group = groups.get(key);
    if (!group) {
      group = { key, ...emptyTotals() };
      groups.set(key, group);
    }
    addTo(group, usage);
  }

  report(since?: Date): UsageReport {
    const byCost = (groups: Map<string, UsageGroup>) =>
      [...groups.values()].map(finish).sort((a, b) => b.cost - a.cost || b.totalTokens - a.totalTokens);
    const calls = Math.max(1, this.totals.calls);
    const totals = finish({ ...this.totals });
    return {
      ...(since === undefined ? {} : { since: since.toISOString() }),
      sessions: this.sessionIds.size,
      subagentSessions: this.subagentSessionIds.size,
      totals,
      perTurn: {
        input: totals.input / calls,
        output: totals.output / calls,
        cacheRead: totals.cacheRead / calls,
        cacheWrite: totals.cacheWrite / calls,
        totalTokens: totals.totalTokens / calls,
        cost: totals.cost / calls,
      },
      byModel: byCost(this.groups.byModel),
      byDay: [...this.groups.byDay.values()].map(finish).sort((a, b) => a.key.localeCompare(b.key)),
      byProject: byCost(this.groups.byProject),
      byAgent: byCost(this.groups.byAgent),
      unreadableLines: this.unreadableLines,
    };
  }
}

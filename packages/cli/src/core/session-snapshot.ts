import type { AgentState } from "@gyre/agent";
import type { Model, ThinkingLevel } from "@gyre/ai";
import type { SessionEndReason } from "./governor/governor.js";
import type { PermissionMode } from "./permissions/create-safety.js";
import type { SessionManager } from "./session/session-manager.js";
import type { SessionHeader } from "./session/types.js";
import type { SessionStats } from "./session-stats.js";

/** A copy of what a mode may show about a session; taking one never changes anything. */
export type SessionSnapshot = {
  model: Model;
  thinkingLevel: ThinkingLevel;
  /** Names of the tools the model may call. */
  toolNames: string[];
  /** True while a prompt runs, including its compaction and the delivery of what was queued as it ended. */
  isRunning: boolean;
  isCompacting: boolean;
  pendingToolCalls: string[];
  /** The error message of the last run's failed or aborted model call, if any. */
  lastError: string | undefined;
  /** Why the last run ended; undefined before the first. */
  endReason: SessionEndReason | undefined;
  /** The sentence of the budget that ended the last run, if one did. */
  budgetReason: string | undefined;
  /** The sentence of the loop that ended the last run, if one did. */
  loopReason: string | undefined;
  sessionId: string;
  /** Undefined for an in-memory session. */
  sessionFile: string | undefined;
  sessionName: string | undefined;
  header: SessionHeader;
  messageCount: number;
  /** Token and cost totals of the conversation. */
  stats: SessionStats;
  /** "plan" while plan mode withholds write/edit and bash is read-only; "default" otherwise. */
  permissionMode: PermissionMode;
};

/** Builds a snapshot from the session's parts. */
export function snapshotOf(parts: {
  agent: Readonly<AgentState>;
  store: SessionManager;
  busy: boolean;
  compacting: boolean;
  endReason: SessionEndReason | undefined;
  budgetReason: string | undefined;
  loopReason: string | undefined;
  stats: SessionStats;
}): Omit<SessionSnapshot, "permissionMode"> {
  const { agent, store } = parts;
  return {
    model: agent.model,
    thinkingLevel: agent.thinkingLevel,
    toolNames: agent.tools.map((tool) => tool.name),
    isRunning: parts.busy || agent.isRunning,
    isCompacting: parts.compacting,
    pendingToolCalls: [...agent.pendingToolCalls],
    lastError: agent.error,
    endReason: parts.endReason,
    budgetReason: parts.budgetReason,
    loopReason: parts.loopReason,
    sessionId: store.id,
    sessionFile: store.path,
    sessionName: store.getName(),
    header: store.header,
    messageCount: agent.messages.length,
    stats: parts.stats,
  };
}

// The work of each op AgentSession (agent-session.ts) runs as its action, and what the session
// does for the parts start-up gave it (plan mode, the todo list, closing them). The session
// decides when an op runs (docs/design/session.md); these functions do it, through an `OpHost`.
import type { Agent } from "@gyre/agent";
import { describeError, type ImageContent, type Model, type ThinkingLevel } from "@gyre/ai";
import { type AgentSessionOptions, runExtraOp } from "./agent-session-options.js";
import type { RewindResult } from "./checkpoints/rewind.js";
import type { RewindRequest } from "./checkpoints/workspace-checkpoints.js";
import type { AutoCompaction } from "./compaction/auto-compaction.js";
import type { PermissionMode } from "./permissions/create-safety.js";
import { PLAN_MODE_RESTRICTION } from "./permissions/plan-mode.js";
import type { SessionManager } from "./session/session-manager.js";
import { storeSwitch } from "./session/switch-session.js";
import type { SessionEventHub } from "./session-event-hub.js";
import type { CompactionReason } from "./session-events.js";
import type { SessionOp, SessionRunResult } from "./session-ops.js";
import type { SessionToolset } from "./session-toolset.js";
import type { SessionUsage } from "./session-usage.js";
import type { TodoItem } from "./tools/todo-tool.js";
import { runRecordedUserShell, type UserShellResult } from "./user-shell.js";

/** The session's parts and steps an op's work uses; `store()` because switching replaces it. */
export type OpHost = {
  readonly options: AgentSessionOptions;
  readonly agent: Agent;
  readonly events: SessionEventHub;
  readonly compaction: AutoCompaction;
  readonly usage: SessionUsage;
  store(): SessionManager;
  /** Makes `store` the session's (the switch does the rest). */
  replaceStore(store: SessionManager): void;
  sessionsDir(): string | undefined;
  flush(): Promise<void>;
  runPrompt(input: string, images: ImageContent[], signal: AbortSignal): Promise<SessionRunResult>;
  runCompaction(reason: CompactionReason, signal: AbortSignal, focus?: string): Promise<boolean>;
  setModel(model: Model, apiKey?: string): void;
  setThinkingLevel(level: ThinkingLevel): void;
};

/** Runs one op as the session's action (every op but those that never wait). */
export async function executeOp(host: OpHost, op: SessionOp, signal: AbortSignal): Promise<unknown> {
  switch (op.type) {
    case "prompt":
      return host.runPrompt(op.text, op.images ?? [], signal);
    case "command":
      return host.runPrompt(`/${op.name}${op.args?.trim() ? ` ${op.args.trim()}` : ""}`, [], signal);
    case "shell":
      return runShellCommand(host, op.command, op.addToContext !== false, signal);
    case "compact":
      return { compacted: await host.runCompaction("manual", signal, op.focus) };
    case "rewind": {
      const request = { entryId: op.entryId, restore: op.restore ?? "both", force: op.force === true };
      return runRewind(host, request);
    }
    case "set_mode":
      return { mode: await setPermissionMode(host.options, op.mode) };
    case "set_model":
      host.setModel(op.model, op.apiKey);
      return { model: op.model };
    case "set_thinking":
      host.setThinkingLevel(op.level);
      return { level: op.level };
    case "new":
    case "open":
    case "fork":
    case "navigate": {
      const next = await storeSwitch(op, host.store(), host.sessionsDir());
      await switchTo(host, next.store, { closePrevious: next.closePrevious });
      return next.answer(host.store());
    }
    case "reload": {
      if (!host.options.reload) throw new Error("Reload is not available in this session.");
      return { changes: await host.options.reload() };
    }
    default:
      return runExtraOp(host.options, op, signal);
  }
}

/** Replaces the store and conversation (new session, open, fork, tree, a rewind of the conversation). */
export async function switchTo(
  host: OpHost,
  store: SessionManager,
  options: { closePrevious?: boolean } = {},
): Promise<void> {
  await host.flush();
  await host.options.hooks?.sessionReplaced(host.store(), store);
  if (options.closePrevious !== false) await host.store().close();
  host.replaceStore(store);
  host.usage.forgetTotals();
  store.repairInterruptedToolCalls();
  const messages = store.buildContext().messages;
  host.agent.replaceMessages(messages);
  host.compaction.markReplaced(messages.length);
  host.events.emit({ type: "session_changed", sessionId: store.id, sessionFile: store.path });
}

/** `approval_response`: hands the answer to the approval waiting under `op.id`; throws when none waits. */
export function answerApproval(
  options: AgentSessionOptions,
  op: Extract<SessionOp, { type: "approval_response" }>,
): { answered: true } {
  const answer = { decision: op.decision, ...(op.reason !== undefined ? { reason: op.reason } : {}) };
  if (!options.answerApproval?.(op.id, answer)) throw new Error(`No approval with id "${op.id}" is waiting.`);
  return { answered: true };
}

async function runShellCommand(
  host: OpHost,
  command: string,
  addToContext: boolean,
  signal: AbortSignal,
): Promise<UserShellResult> {
  const shell = host.options.userShell;
  if (!shell) throw new Error("Shell commands are not available in this session.");
  const turns = host.options.checkpoints?.turns;
  const target = { agent: host.agent, store: host.store(), ...(turns ? { turns } : {}) };
  const onOutput = (tail: string) => host.events.emit({ type: "shell_output", command, tail });
  const result = await runRecordedUserShell(shell, command, { addToContext, onOutput, signal }, target);
  await host.flush();
  return result;
}

async function runRewind(host: OpHost, request: RewindRequest): Promise<RewindResult> {
  if (!host.options.checkpoints) throw new Error("Rewind is not available in this session.");
  const result = await host.options.checkpoints.rewind(request);
  if (request.restore !== "code") await switchTo(host, host.store(), { closePrevious: false });
  return result;
}

async function setPermissionMode(
  options: AgentSessionOptions,
  mode: PermissionMode | "toggle",
): Promise<PermissionMode> {
  const safety = options.safety;
  if (!safety) throw new Error("This session has no permission modes.");
  const next = mode === "toggle" ? (safety.permissionMode() === "plan" ? "default" : "plan") : mode;
  await safety.setPlanMode(next === "plan");
  return next;
}

/**
 * Plan mode withholds tools and adds its note through the session's toolset, so switching works
 * mid-session; every switch is announced as `permission_mode_changed`.
 */
export function followPermissionMode(options: AgentSessionOptions, toolset: SessionToolset, events: SessionEventHub) {
  const safety = options.safety;
  if (!safety) return;
  const applyMode = (mode: PermissionMode) =>
    toolset.setRestriction(mode === "plan" ? PLAN_MODE_RESTRICTION : undefined);
  safety.onModeChange((mode) => {
    applyMode(mode);
    events.emit({ type: "permission_mode_changed", mode });
  });
  applyMode(safety.permissionMode());
}

/** Another session opened (/resume, /new, /tree): its own todo list, not the last one's. */
export function followSessionTodos(
  options: AgentSessionOptions,
  events: SessionEventHub,
  restore: () => readonly TodoItem[],
): void {
  const todos = options.todos;
  if (!todos) return;
  events.subscribe((event) => {
    if (event.type === "session_changed") todos.set(restore());
  });
}

/** Closes what start-up created for the session, last created first; a failure becomes a notice. */
export async function closeOwned(options: AgentSessionOptions, events: SessionEventHub): Promise<void> {
  for (const part of [...(options.owned ?? [])].reverse()) {
    try {
      await part.close();
    } catch (error) {
      events.notice("session", `could not close ${part.name}: ${describeError(error)}`, "error");
    }
  }
}

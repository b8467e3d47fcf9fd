import {
  type AfterToolCallInput,
  type AfterToolCallResult,
  type AgentEvent,
  type AgentMessage,
  type BeforeToolCallInput,
  type BeforeToolCallResult,
  createUserMessage,
} from "@gyre/agent";
import type { SessionEvent } from "../session-events.js";
import type { ApprovalAnswer, ApprovalRequest } from "../user-interface.js";
import { claudeToolInput, claudeToolName, gyreToolArgs, hookMatchTargets } from "./claude-tool-names.js";
import { claudeToolResponse } from "./claude-tool-response.js";
import type { HookRunner } from "./hook-runner.js";
import type { HookEvent, HookInput, HookOutcome } from "./hook-types.js";

export type SessionHooksOptions = {
  runner: HookRunner;
  cwd: string;
  /** The session's id and file now (they change with /new, /resume, /fork). */
  session: () => { id: string; file: string | undefined };
  permissionMode: () => string;
};

/** What the gate is told about a call a PreToolUse hook decided on. */
export type HookGateVerdict = "allow" | "ask" | undefined;

/** Where the hooks' messages for the user go; until the session exists, they wait in a list. */
type Report = (text: string, level: "info" | "warning") => void;

/** Hook context as the model receives it: tagged, so it is not mistaken for the user's words. */
export function contextBlock(event: string, context: readonly string[]): string {
  return `<hook-context event="${event}">\n${context.join("\n")}\n</hook-context>`;
}

/** A session the hook input names instead of the current one (the one that ends, the one that starts). */
type SessionRef = { id: string; file: string | undefined };

/** What `sessionReplaced` reads of a session store. */
type SessionStore = { id: string; path: string | undefined; buildContext(): { messages: readonly unknown[] } };

const refFields = (session: SessionRef | undefined) =>
  session ? { session_id: session.id, transcript_path: session.file ?? "" } : {};

/**
 * The hooks of one session, in the shapes the session and the loop call (docs/hooks.md):
 * tool-call hooks for the agent, the prompt hook for the input path, the Stop hook on the agent's
 * events, and the lifecycle events. Nothing here throws into the run: a failure is a message for
 * the user, except at a gate, where it blocks the call.
 */
export class SessionHooks {
  private readonly verdicts = new Map<string, HookGateVerdict>();
  /** PreToolUse context waiting for its call's result, by tool call id. */
  private readonly pendingContext = new Map<string, string[]>();
  private stopHookActive = false;
  /** Hooks that inform only (SubagentStop, PreCompact, Notification), not awaited by the run; `sessionEnd` waits for them. */
  private readonly background = new Set<Promise<unknown>>();
  private pending: { text: string; level: "info" | "warning" }[] = [];
  private report: Report = (text, level) => this.pending.push({ text, level });
  /** The context of the last SessionStart a hook answered; the system prompt ends with it. */
  private startContext: string[] = [];
  private onStartContext: (() => void) | undefined;

  constructor(private readonly options: SessionHooksOptions) {}

  /** From now on messages go to `report`; the ones gathered so far are handed over first. */
  setReporter(report: Report): void {
    for (const { text, level } of this.pending) report(text, level);
    this.pending = [];
    this.report = report;
  }

  has(event: HookEvent): boolean {
    return this.options.runner.has(event);
  }

  /** The hook runner, whose commands `/reload` replaces. */
  get runner(): HookRunner {
    return this.options.runner;
  }

  private input(event: HookEvent, fields: Record<string, unknown>): HookInput {
    const { id, file } = this.options.session();
    return {
      session_id: id,
      transcript_path: file ?? "",
      cwd: this.options.cwd,
      hook_event_name: event,
      permission_mode: this.options.permissionMode(),
      ...fields,
    };
  }

  private async run(
    event: HookEvent,
    fields: Record<string, unknown>,
    options: { target?: string | readonly string[]; signal?: AbortSignal } = {},
  ): Promise<HookOutcome> {
    const outcome = await this.options.runner.run(this.input(event, fields), options);
    // A hook that failed outside a gate, or a systemMessage: news for the user, never for the model.
    for (const message of outcome.messages) this.report(message, "info");
    if (outcome.stop) this.report(`A ${event} hook stopped the run: ${outcome.stop}`, "info");
    return outcome;
  }

  /** PreToolUse: may block the call, rewrite its arguments, let it skip the approval prompt, or ask. */
  async preToolUse(input: BeforeToolCallInput, signal: AbortSignal): Promise<BeforeToolCallResult | undefined> {
    if (!this.has("PreToolUse")) return undefined;
    const name = input.toolCall.name;
    const outcome = await this.run(
      "PreToolUse",
      {
        tool_name: claudeToolName(name, input.args),
        tool_input: claudeToolInput(name, input.args, this.options.cwd),
        tool_use_id: input.toolCall.id,
      },
      { target: hookMatchTargets(name, input.args), signal },
    );
    if (outcome.context.length > 0) this.pendingContext.set(input.toolCall.id, outcome.context);
    const denied =
      outcome.blocked ??
      (outcome.permissionDecision === "deny"
        ? (outcome.permissionReason ?? "a PreToolUse hook denied it")
        : undefined) ??
      outcome.stop;
    if (denied !== undefined) {
      this.pendingContext.delete(input.toolCall.id);
      return { block: true, reason: `Blocked by a PreToolUse hook: ${denied}` };
    }
    if (outcome.permissionDecision === "allow" || outcome.permissionDecision === "ask")
      this.verdicts.set(input.toolCall.id, outcome.permissionDecision);
    return outcome.updatedInput ? { args: gyreToolArgs(name, input.args, outcome.updatedInput) } : undefined;
  }

  /** What a PreToolUse hook said about this call for the approval gate (read once). */
  gateVerdict(toolCallId: string): HookGateVerdict {
    const verdict = this.verdicts.get(toolCallId);
    this.verdicts.delete(toolCallId);
    return verdict;
  }

  /**
   * PermissionRequest, when the gate would ask for approval: a hook may answer for the user.
   * Undefined leaves the question to the normal path; a Notification fires when a person is asked.
   */
  async permissionRequest(
    request: ApprovalRequest,
    signal: AbortSignal,
    willAsk: boolean,
  ): Promise<ApprovalAnswer | undefined> {
    const toolName = claudeToolName(request.toolName, request.args);
    if (this.has("PermissionRequest")) {
      const outcome = await this.run(
        "PermissionRequest",
        { tool_name: toolName, tool_input: claudeToolInput(request.toolName, request.args, this.options.cwd) },
        { target: hookMatchTargets(request.toolName, request.args), signal },
      );
      // `continue: false` at a gate refuses the call, as it does for PreToolUse.
      if (outcome.blocked || outcome.permissionDecision === "deny" || outcome.stop !== undefined)
        return {
          decision: "deny",
          reason: outcome.blocked ?? outcome.permissionReason ?? outcome.stop ?? "a PermissionRequest hook denied it",
        };
      if (outcome.permissionDecision === "allow") return { decision: "allow" };
    }
    if (willAsk) this.notify(`gyre needs your permission to use ${toolName}`, "permission_prompt");
    return undefined;
  }

  /**
   * PostToolUse after a call that succeeded, PostToolUseFailure after one that returned an error
   * (as Claude Code splits them): feedback and context appended to the result the model reads;
   * `continue: false` ends the run.
   */
  async afterToolCall(input: AfterToolCallInput, signal: AbortSignal): Promise<AfterToolCallResult | undefined> {
    const early = this.pendingContext.get(input.toolCall.id) ?? [];
    this.pendingContext.delete(input.toolCall.id);
    const notes = [...early];
    let terminate = false;
    const event = input.isError ? "PostToolUseFailure" : "PostToolUse";
    if (this.has(event)) {
      const name = input.toolCall.name;
      const toolName = claudeToolName(name, input.args);
      const text = input.result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      const toolInput = claudeToolInput(name, input.args, this.options.cwd);
      const called = { tool_name: toolName, tool_input: toolInput, tool_use_id: input.toolCall.id };
      const fields = input.isError
        ? { ...called, error: text, is_interrupt: signal.aborted }
        : {
            ...called,
            tool_response: claudeToolResponse({
              toolName: name,
              toolInput,
              output: text,
              details: input.result.details,
            }),
          };
      const outcome = await this.run(event, fields, { target: hookMatchTargets(name, input.args), signal });
      if (outcome.blocked) notes.push(`${event} hook feedback: ${outcome.blocked}`);
      notes.push(...outcome.context);
      terminate = outcome.stop !== undefined;
    }
    if (notes.length === 0 && !terminate) return undefined;
    const added = notes.map((text) => ({ type: "text" as const, text: `\n\n${text}` }));
    return { content: [...input.result.content, ...added], ...(terminate ? { terminate: true } : {}) };
  }

  /** UserPromptSubmit: `blocked` means the prompt goes nowhere (its reason is for the user); else context for the model. */
  async userPromptSubmit(prompt: string): Promise<{ blocked?: string; context: string[] }> {
    if (!this.has("UserPromptSubmit")) return { context: [] };
    const outcome = await this.run("UserPromptSubmit", { prompt });
    const blocked = outcome.blocked ?? outcome.stop;
    return blocked !== undefined ? { blocked, context: [] } : { context: outcome.context };
  }

  /**
   * The Stop hook, on the agent's events: when a turn ends with a final answer and nothing is
   * queued, a hook that blocks makes the agent go on with its reason as the next message.
   */
  async onAgentEvent(
    event: AgentEvent,
    run: { hasQueued(): boolean; followUp(message: AgentMessage): void },
  ): Promise<void> {
    if (event.type === "agent_end") this.stopHookActive = false;
    if (event.type !== "turn_end" || !this.has("Stop")) return;
    const message = event.message;
    if (message.stopReason !== "stop" || event.toolResults.length > 0 || run.hasQueued()) return;
    if (message.content.some((block) => block.type === "toolCall")) return;
    const outcome = await this.run("Stop", { stop_hook_active: this.stopHookActive });
    if (outcome.blocked === undefined || outcome.stop !== undefined) return;
    this.stopHookActive = true;
    run.followUp(createUserMessage(`Stop hook feedback: ${outcome.blocked}`));
  }

  /**
   * SessionStart (`source`: startup, resume, clear, compact). Its context stands at the end of the
   * system prompt (`withStartContext`) from the next model call on, in place of the last one's; a
   * start no hook answered keeps the context the session had.
   */
  async sessionStart(source: string, session?: SessionRef): Promise<string[]> {
    if (!this.has("SessionStart")) return [];
    const outcome = await this.run("SessionStart", { source, ...refFields(session) }, { target: source });
    if (outcome.ran === 0) return [];
    this.startContext = outcome.context;
    this.onStartContext?.();
    return outcome.context;
  }

  /** `prompt` with the last SessionStart context below it (docs/hooks.md). */
  withStartContext(prompt: string): string {
    return this.startContext.length > 0 ? `${prompt}\n\n${contextBlock("SessionStart", this.startContext)}` : prompt;
  }

  /** Called when a SessionStart changed the context: the session's system prompt is built again. */
  setStartContextListener(listener: () => void): void {
    this.onStartContext = listener;
  }

  /** SessionEnd, as the session is disposed, after the informing hooks still running; it cannot stop that. */
  async sessionEnd(reason: string, session?: SessionRef): Promise<void> {
    await Promise.allSettled([...this.background]);
    if (this.has("SessionEnd")) await this.run("SessionEnd", { reason, ...refFields(session) }, { target: reason });
  }

  /**
   * The session is replaced by another (/new, /resume, a fork; RPC's new_session, switch_session):
   * SessionEnd for the one that ends, then SessionStart for the next, `clear` when it has no
   * messages yet, else `resume`. Moving inside one session (/tree, a rewind) is neither.
   */
  async sessionReplaced(previous: SessionStore, next: SessionStore): Promise<void> {
    if (previous.id === next.id) return;
    const fresh = next.buildContext().messages.length === 0;
    await this.sessionEnd(fresh ? "clear" : "other", { id: previous.id, file: previous.path });
    await this.sessionStart(fresh ? "clear" : "resume", { id: next.id, file: next.path });
  }

  private inBackground(event: HookEvent, fields: Record<string, unknown>, target?: string): void {
    const running = this.run(event, fields, target === undefined ? {} : { target });
    this.background.add(running);
    void running.finally(() => this.background.delete(running));
  }

  notify(message: string, type: string): void {
    if (this.has("Notification")) this.inBackground("Notification", { message, notification_type: type }, type);
  }

  /** PreCompact and SubagentStop, from the session's events; both inform only. */
  onSessionEvent(event: SessionEvent): void {
    if (event.type === "compaction_start" && this.has("PreCompact")) {
      const trigger = event.reason === "manual" ? "manual" : "auto";
      this.inBackground("PreCompact", { trigger, custom_instructions: "" }, trigger);
    }
    if (event.type === "subagent_event" && event.event.type === "agent_end" && this.has("SubagentStop"))
      this.inBackground("SubagentStop", { stop_hook_active: false, agent_type: event.agent });
  }
}

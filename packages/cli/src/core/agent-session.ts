import type { Agent, AgentEvent, AgentMessage, AgentRunResult, AnyAgentTool } from "@gyre/agent";
import { describeError, type ImageContent, type Model, type ThinkingLevel } from "@gyre/ai";
import { type AgentSessionOptions, createSessionAgent, runExtraOp } from "./agent-session-options.js";
import type { RewindPlan, RewindResult } from "./checkpoints/rewind.js";
import type { SessionChanges } from "./checkpoints/types.js";
import type { RewindRequest, RewindTarget } from "./checkpoints/workspace-checkpoints.js";
import { AutoCompaction } from "./compaction/auto-compaction.js";
import { customBaseUrl } from "./config/resolve-model.js";
import { restoreTodos } from "./create-harness-tools.js";
import { systemPromptForRun } from "./extensions/extension-bridge.js";
import type { SessionEndReason } from "./governor/governor.js";
import { raiseBudgetIfAsked } from "./governor/raise-budget.js";
import type { McpResourceCatalog } from "./mcp/mcp-resource-catalog.js";
import type { McpServerStatus } from "./mcp/types.js";
import type { PermissionMode } from "./permissions/create-safety.js";
import { PLAN_MODE_RESTRICTION } from "./permissions/plan-mode.js";
import { QueuedMessages } from "./queued-messages.js";
import { processSecretRegistry } from "./session/redact-secrets.js";
import type { SessionManager } from "./session/session-manager.js";
import {
  describeTree,
  messageText,
  type SessionTreeView,
  sessionsDirOf,
  storeSwitch,
} from "./session/switch-session.js";
import type { SessionEntry } from "./session/types.js";
import { SessionEventHub } from "./session-event-hub.js";
import type { CompactionReason, NoticeEvent, QueuedMessage, SessionEvent } from "./session-events.js";
import type { SessionInfo } from "./session-info.js";
import { SessionOpQueue } from "./session-op-queue.js";
import {
  type Delivered,
  defaultWhileBusy,
  describeOp,
  SessionBusyError,
  type SessionOp,
  type SessionOpResult,
  type SessionOpType,
  type SessionRunResult,
} from "./session-ops.js";
import { type SessionSnapshot, snapshotOf } from "./session-snapshot.js";
import { getLastAssistantText, type SessionStats } from "./session-stats.js";
import { type SessionRestriction, SessionToolset } from "./session-toolset.js";
import { SessionUsage, type TreeSpend, treeSpendOf } from "./session-usage.js";
import type { TodoItem } from "./tools/todo-tool.js";
import { runRecordedUserShell, type UserShellResult } from "./user-shell.js";
import { wireSessionEvents } from "./wire-session-events.js";

export type { AgentSessionOptions } from "./agent-session-options.js";
export type { SessionEvent } from "./session-events.js";
export type { SessionInfo } from "./session-info.js";
export type { SessionOp, SessionOpResult, SessionOpType, SessionRunResult, WhileBusy } from "./session-ops.js";
export { SessionBusyError } from "./session-ops.js";
export type { SessionSnapshot } from "./session-snapshot.js";
/** What `setRestriction` takes: which tools the model is not offered, and a system prompt note. */
export type { SessionRestriction } from "./session-toolset.js";

/** How `submit` reports on an op: `onQueued` is called when it waits for its turn (not when it runs at once). */
export type SubmitOptions = { onQueued?: () => void };

/**
 * The one door front ends use into a conversation (docs/design/session.md): an `Agent` plus
 * persistence, compaction, extensions, session switching, and what start-up made for it (MCP
 * servers, the sandbox and plan mode, checkpoints, the todo list). Ops go in through `submit`,
 * one at a time; events come out through `subscribe`, `session_idle` last once the run's writes
 * are done. `dispose` closes everything the session owns, last created first.
 */
export class AgentSession {
  private readonly agent: Agent;
  private store: SessionManager;
  private apiKey: string | undefined;
  private readonly events: SessionEventHub;
  private readonly compaction: AutoCompaction;
  /** Totals of every call this session made, and what subagents still at work spent (the footer's totals are the tree's). */
  private readonly usage = new SessionUsage();
  private lastEndReason: SessionEndReason | undefined;
  private budgetReason: string | undefined;
  private loopReason: string | undefined;
  /** Messages handed to the agent's queues and not yet delivered, from whoever queued them. */
  private readonly queued = new QueuedMessages();
  /** Ops that arrived while busy (`queue`, or `reject` while the run is being written away), in order. */
  private readonly waiting = new SessionOpQueue(() => this.emitQueue());
  /** The run has given its final answer; what is left is writing it away (or delivering what was queued). */
  private answered = false;
  /** `session_idle` was emitted since the last action ended; the next one starts a new busy period. */
  private idleAnnounced = true;
  /** Runs started so far; tells a prompt handled by a command whether the command ran one. */
  private runs = 0;
  private controller: AbortController | undefined;
  private active: Promise<unknown> | undefined;
  private disposed: Promise<void> | undefined;
  private mcpStartup: Promise<string[]> | undefined;
  /** Set when the last turn stopped the run so that it can compact before its next model call. */
  private compactBeforeNextTurn = false;
  /** Tools and system prompt, minus what plan mode withholds; `/reload` rebuilds them. */
  private readonly toolset: SessionToolset;

  constructor(private readonly options: AgentSessionOptions) {
    this.store = options.store;
    this.apiKey = options.apiKey;
    this.compaction = new AutoCompaction(options.compaction ?? {}, options.messages.length);
    this.events = new SessionEventHub(options.extensions);
    this.agent = createSessionAgent(options, {
      apiKey: () => this.apiKey,
      notice: (message) => this.events.notice("listener", message),
      stopToCompact: (turn) =>
        (this.compactBeforeNextTurn = this.compaction.needsCompactionAfterTurn(turn, this.agent.state.model)),
      describeUnavailableTool: (name) => this.toolset.describeWithheld(name),
    });
    this.toolset = new SessionToolset(this.agent, options.tools, options.systemPrompt);
    wireSessionEvents(options, {
      agent: this.agent,
      events: this.events,
      store: () => this.store,
      isBusy: () => this.busy,
      abort: () => void this.abort(),
      queue: (message, kind) => this.queueMessage(kind, message, "extension"),
      start: (message, text) => this.runMessage(message, text),
      onAgentEvent: (event) => this.onAgentEvent(event),
      onSubagentEvent: (parentToolCallId, event) => this.usage.observeSubagent(parentToolCallId, event),
    });
    // Plan mode withholds tools and adds its note through the session, so switching works mid-session.
    const safety = options.safety;
    if (safety) {
      const applyMode = (mode: PermissionMode) =>
        this.toolset.setRestriction(mode === "plan" ? PLAN_MODE_RESTRICTION : undefined);
      safety.onModeChange((mode) => {
        applyMode(mode);
        this.events.emit({ type: "permission_mode_changed", mode });
      });
      applyMode(safety.permissionMode());
    }
    // Another session opened (/resume, /new, /tree): its own todo list, not the last one's.
    if (options.todos) {
      const todos = options.todos;
      this.subscribe((event) => {
        if (event.type === "session_changed") todos.set(restoreTodos(this.messages, this.entries()));
      });
    }
  }

  /** What modes show: model, thinking level, whether it runs, why the last run ended, the session's id, file and name, totals. */
  get state(): SessionSnapshot {
    return {
      ...snapshotOf({
        agent: this.agent.state,
        store: this.store,
        busy: this.busy,
        compacting: this.compaction.running,
        endReason: this.lastEndReason,
        budgetReason: this.budgetReason,
        loopReason: this.loopReason,
        stats: this.getStats(),
      }),
      permissionMode: this.options.safety?.permissionMode() ?? "default",
    };
  }

  /** Where the session runs (folder, home, settings, skills, templates…), as start-up settled it. */
  get info(): SessionInfo {
    const info = this.options.info;
    if (!info) throw new Error("This session was built without start-up information.");
    return info;
  }

  get messages(): readonly AgentMessage[] {
    return this.agent.state.messages;
  }

  /** Every session event, in order; returns the unsubscribe function. A throwing listener becomes a notice. */
  subscribe(listener: (event: SessionEvent) => void): () => void {
    return this.events.subscribe(listener);
  }

  /**
   * The one way to act on the session (docs/design/session.md). Ops run one at a time, in the
   * order submitted; one that arrives while the session is busy is handled by its `whileBusy`.
   * Resolves with the op's result once it is done (a steered or followed-up text: once queued);
   * rejects with a `SessionBusyError` when refused, or with the op's own error.
   */
  submit<T extends SessionOpType>(
    op: Extract<SessionOp, { type: T }>,
    options: SubmitOptions = {},
  ): Promise<SessionOpResult<T>> {
    return this.accept(op, options) as Promise<SessionOpResult<T>>;
  }

  /**
   * Waits for the session's turn as an op with this `whileBusy` would, for a front end's own
   * step before its op (a picker, a `!cmd`'s view): `reject` throws a `SessionBusyError` naming
   * `what` while the agent works; otherwise it resolves once nothing runs or waits.
   */
  async waitTurn(what: string, options: SubmitOptions & { whileBusy?: "queue" | "reject" } = {}): Promise<void> {
    if (!this.busy && this.waiting.size === 0) return;
    if (options.whileBusy !== "queue" && !this.windingDown) throw new SessionBusyError("command", what);
    options.onQueued?.();
    await this.whenIdle();
  }

  private accept(op: SessionOp, options: SubmitOptions): Promise<unknown> {
    if (op.type === "shutdown") return this.dispose().then(() => ({ disposed: true }));
    if (this.disposed) return Promise.reject(new Error("The session has been disposed; create a new one."));
    switch (op.type) {
      case "steer":
      case "follow_up":
        return Promise.resolve(this.queueText(op.type, op.text));
      case "abort":
        return this.abort().then(() => ({ aborted: true }));
      case "approval_response":
        return new Promise((resolve) => resolve(this.answerApproval(op)));
    }
    if (!this.busy && this.waiting.size === 0) return this.track((signal) => this.execute(op, signal));
    // An extension command runs at once: its handler decides (its messages steer the run).
    if (op.type === "command" && this.options.extensions?.getCommands().has(op.name))
      return this.options.extensions
        .runCommand(op.name, op.args?.trim() ?? "")
        .then((): SessionRunResult => ({ messages: [], reason: "stop" }));
    const policy = defaultWhileBusy(op);
    if (op.type === "prompt" && (policy === "steer" || policy === "follow_up") && this.agent.state.isRunning)
      return Promise.resolve(this.queueText(policy, op.text));
    if (policy === "reject" && !this.windingDown) return Promise.reject(new SessionBusyError(op.type, describeOp(op)));
    options.onQueued?.();
    return this.enqueue(op);
  }

  /** Holds `op` until everything before it is done; `abort()` drops it. */
  private enqueue(op: SessionOp): Promise<unknown> {
    return this.waiting.add(op, () => this.track((signal) => this.execute(op, signal)));
  }

  /** Runs one op as the session's action. */
  private async execute(op: SessionOp, signal: AbortSignal): Promise<unknown> {
    switch (op.type) {
      case "prompt":
        return this.runPrompt(op.text, op.images ?? [], signal);
      case "command":
        return this.runPrompt(`/${op.name}${op.args?.trim() ? ` ${op.args.trim()}` : ""}`, [], signal);
      case "shell":
        return this.runShellCommand(op.command, op.addToContext !== false, signal);
      case "compact":
        return { compacted: await this.runCompaction("manual", signal, op.focus) };
      case "rewind": {
        const request = { entryId: op.entryId, restore: op.restore ?? "both", force: op.force === true };
        return this.runRewind(request);
      }
      case "set_mode":
        return { mode: await this.setPermissionMode(op.mode) };
      case "set_model":
        this.setModel(op.model, op.apiKey);
        return { model: op.model };
      case "set_thinking":
        this.setThinkingLevel(op.level);
        return { level: op.level };
      case "new":
      case "open":
      case "fork":
      case "navigate": {
        const next = await storeSwitch(op, this.store, this.sessionsDir);
        await this.switchTo(next.store, { closePrevious: next.closePrevious });
        return next.answer(this.store);
      }
      case "reload": {
        if (!this.options.reload) throw new Error("Reload is not available in this session.");
        return { changes: await this.options.reload() };
      }
      default:
        return runExtraOp(this.options, op, signal);
    }
  }

  /**
   * Runs one user request to the end, then delivers what was queued as it ended, each through
   * the same path: threshold compaction, `before_agent_start`, the run, one overflow
   * compact-and-retry (never a loop). `submit({ type: "prompt" })` in one call.
   */
  prompt(input: string, images: ImageContent[] = []): Promise<SessionRunResult> {
    return this.submit({ type: "prompt", text: input, images }) as Promise<SessionRunResult>;
  }

  private async runPrompt(input: string, images: ImageContent[], signal: AbortSignal): Promise<SessionRunResult> {
    // A scripted run sees the same tools every time: the first prompt waits for the servers.
    if (this.options.waitForMcp && !this.mcpStartup)
      for (const message of await this.waitForMcp()) this.events.notice("mcp", message);
    this.options.governor?.startRequest();
    const resolved = this.options.resolveInput
      ? await this.options.resolveInput(input)
      : { kind: "prompt" as const, text: input };
    const runsBefore = this.runs;
    const first: AgentRunResult =
      resolved.kind === "handled"
        ? { messages: [], reason: "stop" }
        : await this.runOnce(resolved.text, images, signal, () => this.agent.prompt(resolved.text, { images }));
    const last = await this.deliverQueued(first, signal);
    return { ...last, reason: this.runs > runsBefore ? (this.lastEndReason ?? last.reason) : last.reason };
  }

  /** Adds a message to the run in progress at its next turn boundary (or to the next run). */
  steer(text: string): void {
    this.queueText("steer", text);
  }

  /** Queues a message for when the agent would otherwise stop. */
  followUp(text: string): void {
    this.queueText("follow_up", text);
  }

  /**
   * A text given to the agent's queue. While the session is only writing a finished run away,
   * no run would read it: it becomes a prompt of its own, after what is in progress.
   */
  private queueText(kind: "steer" | "follow_up", text: string): Delivered {
    if (this.busy && !this.agent.state.isRunning) {
      void this.enqueue({ type: "prompt", text }).catch(() => {});
      return { delivered: "follow_up" };
    }
    this.queueMessage(kind, text, "user");
    return { delivered: kind };
  }

  /** Every queued message goes through here, whoever sent it: its text is known for `before_agent_start`. */
  private queueMessage(kind: "steer" | "follow_up", message: string | AgentMessage, source: QueuedMessage["source"]) {
    const text = typeof message === "string" ? message : messageText(message);
    this.queued.add(kind, text, source);
    if (kind === "steer") this.agent.steer(message);
    else this.agent.followUp(message);
    this.emitQueue();
  }

  /** Removes and returns the user's queued, not yet delivered texts (Esc puts them back in the editor). */
  takeQueued(): string[] {
    this.agent.clearQueues();
    const texts = this.queued.takeAll();
    const prompts = this.waiting
      .dropAll("Dropped: the run was stopped.")
      .flatMap((op) => (op.type === "prompt" ? [op.text] : []));
    this.emitQueue();
    return [...texts, ...prompts];
  }

  /** Stops the model call, tools and compaction in progress and drops waiting ops; resolves once idle. */
  async abort(): Promise<void> {
    this.waiting.dropAll("Dropped: the run was stopped.");
    this.controller?.abort();
    this.agent.abort();
    await this.whenIdle();
  }

  /** Resolves once no prompt, compaction or run is in progress (at once when idle). */
  async whenIdle(): Promise<void> {
    while (this.busy || this.waiting.size > 0) {
      await this.active?.catch(() => {});
      await this.agent.waitForIdle();
      if (!this.active && this.waiting.size > 0) this.startNext();
    }
  }

  /**
   * Summarises the older part of the branch now (`focus` steers the summary). Returns whether it
   * compacted; a failure is reported by `compaction_end` with `error`. Stopped by `abort()`.
   */
  async compact(focus?: string): Promise<boolean> {
    return (await this.submit({ type: "compact", ...(focus ? { focus } : {}) })).compacted;
  }

  /** Switches the model from the next call on (the `set_model` op's work, also safe to call directly). */
  setModel(model: Model, apiKey?: string): void {
    const sameProvider = model.provider === this.agent.state.model.provider;
    this.agent.setModel(model);
    // A key given at start-up (--api-key) stays with its provider; another provider resolves its own.
    if (apiKey !== undefined) this.apiKey = apiKey;
    else if (!sameProvider) this.apiKey = this.options.getApiKey?.(model.provider);
    (this.options.secrets ?? processSecretRegistry()).add(this.apiKey);
    this.store.appendModelChange(model.provider, model.id, customBaseUrl(model));
  }

  /** Replaces the tools; a run in progress gets them from its next turn (an MCP server's list changed). */
  setTools(tools: AnyAgentTool[]): void {
    this.toolset.setTools(tools);
  }

  /**
   * Tools withheld from the model (not offered at all, so not callable) and a note appended to
   * the system prompt. Tools change from the next model call, the prompt from the next run;
   * `undefined` lifts it. Plan mode sets it through `set_mode`.
   */
  setRestriction(restriction: SessionRestriction | undefined): void {
    this.toolset.setRestriction(restriction);
  }

  /** Replaces the system prompt from the next run on (`/reload`). */
  setSystemPrompt(systemPrompt: string): void {
    this.toolset.setSystemPrompt(systemPrompt);
  }

  /** Tells the user something as a `notice` event (MCP servers restarting, failing to connect). */
  notice(source: NoticeEvent["source"], message: string, level: NoticeEvent["level"] = "warning"): void {
    this.events.notice(source, message, level);
  }

  /** Sets the thinking level from the next call on (the `set_thinking` op's work). */
  setThinkingLevel(level: ThinkingLevel): void {
    this.agent.setThinkingLevel(level);
    this.store.appendThinkingLevelChange(level);
  }

  /** `submit({ type: "new" })`. */
  async newSession(): Promise<void> {
    await this.submit({ type: "new" });
  }

  /** `submit({ type: "open", session })`: throws a `CliError` naming the problem. */
  async open(pathOrIdPrefix: string): Promise<void> {
    await this.submit({ type: "open", session: pathOrIdPrefix });
  }

  /** `submit({ type: "fork" })`: continues in a copy of the branch; the original is unchanged. */
  async fork(options: { entryId?: string } = {}): Promise<void> {
    await this.submit({ type: "fork", ...options });
  }

  /** `submit({ type: "navigate" })`: a user message comes back as `editText` to edit and resend. */
  navigate(entryId: string): Promise<{ editText?: string }> {
    return this.submit({ type: "navigate", entryId });
  }

  private async runRewind(request: RewindRequest): Promise<RewindResult> {
    if (!this.options.checkpoints) throw new Error("Rewind is not available in this session.");
    const result = await this.options.checkpoints.rewind(request);
    if (request.restore !== "code") await this.switchTo(this.store, { closePrevious: false });
    return result;
  }

  /** What a rewind would change, without changing anything. */
  previewRewind(request: RewindRequest): Promise<RewindPlan> {
    if (!this.options.checkpoints) throw new Error("Rewind is not available in this session.");
    return this.options.checkpoints.preview(request);
  }

  /** Where a rewind can go, newest first: undoing the last rewind, then each user message of the branch. */
  rewindTargets(): RewindTarget[] {
    return this.options.checkpoints?.rewindTargets() ?? [];
  }

  /** What the session changed in the workspace (`/diff`). */
  sessionChanges(): Promise<SessionChanges> {
    if (!this.options.checkpoints) return Promise.resolve({ changes: [], notice: "This session has no checkpoints." });
    return this.options.checkpoints.sessionChanges();
  }

  private async runShellCommand(command: string, addToContext: boolean, signal: AbortSignal): Promise<UserShellResult> {
    const shell = this.options.userShell;
    if (!shell) throw new Error("Shell commands are not available in this session.");
    const turns = this.options.checkpoints?.turns;
    const target = { agent: this.agent, store: this.store, ...(turns ? { turns } : {}) };
    const onOutput = (tail: string) => this.events.emit({ type: "shell_output", command, tail });
    const result = await runRecordedUserShell(shell, command, { addToContext, onOutput, signal }, target);
    await this.flush();
    return result;
  }

  private async setPermissionMode(mode: PermissionMode | "toggle"): Promise<PermissionMode> {
    const safety = this.options.safety;
    if (!safety) throw new Error("This session has no permission modes.");
    const next = mode === "toggle" ? (safety.permissionMode() === "plan" ? "default" : "plan") : mode;
    await safety.setPlanMode(next === "plan");
    return next;
  }

  /** The sandbox level in one line (footer, JSON header, RPC state); "none" without safety. */
  describeSandbox(): Promise<string> {
    return this.options.safety?.describeSandbox() ?? Promise.resolve("none");
  }

  /** Every configured MCP server's state (connecting, ready with N tools, failed and why) and stderr tail. */
  mcpStatuses(): McpServerStatus[] {
    return this.options.mcp?.statuses() ?? [];
  }

  /**
   * Waits, once and bounded, until every configured MCP server connected or failed; servers still
   * connecting then are left out. Resolves with one sentence per problem (empty without servers).
   */
  waitForMcp(): Promise<string[]> {
    const mcp = this.options.mcp;
    this.mcpStartup ??= mcp
      ? mcp.waitForStartup(this.options.mcpStartupTimeoutMs).then((startup) => startup.messages)
      : Promise.resolve([]);
    return this.mcpStartup;
  }

  /** The MCP servers' resources for `@server:` completion; undefined without servers. */
  get mcpResources(): McpResourceCatalog | undefined {
    return this.options.mcp?.resources;
  }

  /** The todo list as the todo tool last wrote it. */
  todos(): readonly TodoItem[] {
    return this.options.todos?.get() ?? [];
  }

  /** The extensions' slash commands: name and description. */
  extensionCommands(): { name: string; description: string }[] {
    return [...(this.options.extensions?.getCommands() ?? [])].map(([name, { command }]) => ({
      name,
      description: command.description ?? "extension command",
    }));
  }

  private answerApproval(op: Extract<SessionOp, { type: "approval_response" }>): { answered: true } {
    const answer = { decision: op.decision, ...(op.reason !== undefined ? { reason: op.reason } : {}) };
    if (!this.options.answerApproval?.(op.id, answer)) throw new Error(`No approval with id "${op.id}" is waiting.`);
    return { answered: true };
  }

  /** Names the session (shown by /resume and in the footer). */
  rename(name: string): void {
    this.store.setName(name);
  }

  /** The session's entries as a tree, with the current branch marked. */
  tree(): SessionTreeView {
    return describeTree(this.store);
  }

  /** Every entry of the session, every branch, in file order (exports). Parses the whole file. */
  entries(): SessionEntry[] {
    return this.store.getEntries();
  }

  /** The entries from the root to the current leaf, in order (the TUI redraws `!!cmd` records from them). */
  branch(): SessionEntry[] {
    return this.store.getBranch();
  }

  getStats(): SessionStats {
    const { messages } = this.agent.state;
    return this.usage.stats(this.store, messages, this.compaction.currentContextTokens(messages));
  }

  /**
   * Pauses the whole tree at its reached budget to ask whether to raise it (a subagent's turn
   * ended there); true when raised, so the subagent goes on. False when nobody can be asked.
   */
  pauseAtBudget(signal: AbortSignal): Promise<boolean> {
    return this.raiseBudget("budget", signal);
  }

  private raiseBudget(reason: AgentRunResult["reason"], signal: AbortSignal): Promise<boolean> {
    return raiseBudgetIfAsked(this.options, reason, signal, (text) => this.events.notice("session", text, "info"));
  }

  /** What the current request's tree of agents spent, in total and per agent (undefined without a governor). */
  getSpend(): TreeSpend | undefined {
    return treeSpendOf(this.options.governor?.budget);
  }

  getLastAssistantText(): string | undefined {
    return getLastAssistantText(this.agent.state.messages);
  }

  /** Waits for every pending write and fsyncs the session file; a failure becomes a notice. */
  async flush(): Promise<void> {
    try {
      await this.store.flush();
    } catch (error) {
      this.events.notice("session", `could not write the session file: ${describeError(error)}`, "error");
    }
  }

  /**
   * Ends the session and everything it owns: extensions hear `session_shutdown`, work in
   * progress stops, the session file is written, then what start-up created for it closes, last
   * created first (checkpoints, the sandbox and its cgroup, MCP servers), and the store last.
   * After it nothing of the session keeps a process alive; calling it again waits for the first call.
   */
  dispose(): Promise<void> {
    this.disposed ??= this.close();
    return this.disposed;
  }

  private async close(): Promise<void> {
    await this.options.extensions?.emit({ type: "session_shutdown" });
    await this.abort();
    await this.flush();
    for (const part of [...(this.options.owned ?? [])].reverse()) {
      try {
        await part.close();
      } catch (error) {
        this.events.notice("session", `could not close ${part.name}: ${describeError(error)}`, "error");
      }
    }
    await this.store.close();
  }

  /**
   * Runs `work` as the session's one action, under a fresh `AbortController`. When it ends the
   * next waiting op starts; with none, `session_idle` says the session is free.
   */
  private async track<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.active) throw new Error("The session is busy: submit the op instead, or await abort() first.");
    const controller = new AbortController();
    this.controller = controller;
    this.idleAnnounced = false;
    const run = Promise.resolve().then(() => work(controller.signal));
    this.active = run;
    try {
      return await run;
    } finally {
      this.active = undefined;
      this.controller = undefined;
      this.startNext();
    }
  }

  /** Starts the next waiting op, or announces `session_idle` once nothing runs or waits. */
  private startNext(): void {
    if (this.active || this.agent.state.isRunning) return;
    if (this.waiting.startNext() || this.idleAnnounced) return;
    this.idleAnnounced = true;
    this.events.emit({ type: "session_idle" });
  }

  /** Tells front ends what waits: queued messages (with who queued them) and ops. */
  private emitQueue(): void {
    this.events.emit({
      type: "queue_update",
      ...this.queued.lists(),
      waiting: this.waiting.labels(),
    });
  }

  /**
   * Busy, but only writing the run away: the agent stopped, or gave its final answer with nothing
   * queued to go on with. An op that would be refused now waits the moment instead.
   */
  private get windingDown(): boolean {
    if (!this.busy) return false;
    if (!this.agent.state.isRunning) return true;
    return this.answered && this.queued.empty;
  }

  /** One run through the prompt path: threshold compaction, `before_agent_start`, the run, one overflow retry. */
  private async runOnce(
    text: string,
    images: ImageContent[],
    signal: AbortSignal,
    start: () => Promise<AgentRunResult>,
  ): Promise<AgentRunResult> {
    if (this.compaction.isNearWindow(this.agent.state.messages, this.agent.state.model))
      await this.runCompaction("threshold", signal);
    if (signal.aborted) return { messages: [], reason: "aborted" };
    this.runs++;
    const base = this.toolset.basePrompt();
    const systemPrompt = await systemPromptForRun(this.options.extensions, {
      prompt: text,
      images,
      systemPrompt: base,
    });
    this.agent.setSystemPrompt(systemPrompt ?? base);
    this.compactBeforeNextTurn = false;
    let result = await start();
    for (;;) {
      // A long tool loop pauses between turns to compact and goes on (an overflow is handled below, once).
      while (result.reason === "stop_after_turn" && this.compactBeforeNextTurn && !signal.aborted) {
        this.compactBeforeNextTurn = false;
        await this.runCompaction("threshold", signal);
        if (signal.aborted) break;
        result = await this.agent.continue();
      }
      if (signal.aborted || !(await this.raiseBudget(result.reason, signal))) break;
      result = await this.agent.continue();
    }
    if (!signal.aborted && this.compaction.endedInOverflow(this.agent.state.messages)) {
      if (await this.runCompaction("overflow", signal)) result = await this.agent.continue();
    }
    const end = this.options.governor?.endOf(result.reason) ?? { reason: result.reason };
    this.lastEndReason = end.reason;
    if (end.reason === "budget" && end.message !== undefined) this.budgetReason = end.message;
    this.loopReason = end.reason === "loop" ? end.message : undefined;
    await this.flush();
    return result;
  }

  /** Delivers messages queued as the last run ended, each as its own run; stops on abort or a budget. */
  private async deliverQueued(last: AgentRunResult, signal: AbortSignal): Promise<AgentRunResult> {
    let result = last;
    const stopped = () => result.reason === "budget" || this.options.governor?.shouldStop() === true;
    while (this.agent.hasQueuedMessages() && !signal.aborted && !stopped()) {
      // The agent delivers steering first: the hook is told the text that is delivered next.
      result = await this.runOnce(this.queued.next()?.text ?? "", [], signal, () => this.agent.continue());
    }
    return result;
  }

  /**
   * An extension message sent while no run reads the queues: a run of its own through the prompt
   * path, inside the current action when one is in progress (a command's handler awaits it).
   */
  private runMessage(message: AgentMessage, text: string): Promise<AgentRunResult> {
    const run = (signal: AbortSignal) =>
      this.runOnce(text, [], signal, () => this.agent.prompt(message)).then((result) =>
        this.deliverQueued(result, signal),
      );
    const current = this.controller;
    return current ? run(current.signal) : this.track(run);
  }

  /** Whether a prompt (with its compaction and queued deliveries) or a run is in progress. */
  private get busy(): boolean {
    return this.active !== undefined || this.agent.state.isRunning;
  }

  private runCompaction(reason: CompactionReason, signal: AbortSignal, focus?: string): Promise<boolean> {
    return this.compaction.run({
      reason,
      signal,
      ...(focus ? { focus } : {}),
      store: this.store,
      model: this.agent.state.model,
      apiKey: this.apiKey,
      ...(this.options.streamFn ? { streamFn: this.options.streamFn } : {}),
      emit: (event) => this.events.emit(event),
      apply: async (messages) => {
        // The compaction entry carries its summary call's usage: the totals are rebuilt with it.
        this.usage.forgetTotals();
        this.agent.replaceMessages(messages);
        await this.flush();
        await this.options.hooks?.sessionStart("compact");
      },
    });
  }

  /** Replaces the store and conversation (new session, open, fork, tree). */
  private async switchTo(store: SessionManager, options: { closePrevious?: boolean } = {}): Promise<void> {
    await this.flush();
    await this.options.hooks?.sessionReplaced(this.store, store);
    if (options.closePrevious !== false) await this.store.close();
    this.store = store;
    this.usage.forgetTotals();
    store.repairInterruptedToolCalls();
    const messages = store.buildContext().messages;
    this.agent.replaceMessages(messages);
    this.compaction.markReplaced(messages.length);
    this.events.emit({ type: "session_changed", sessionId: store.id, sessionFile: store.path });
  }

  private onAgentEvent(event: AgentEvent): Promise<void> | undefined {
    this.events.notify(event);
    const governed = this.options.governor?.observe(event);
    if (governed?.event) this.events.emit(governed.event);
    // A warning reaches the model only if the run goes on; after a final answer it would start a new run.
    if (governed?.steer && event.type === "turn_end" && event.toolResults.length > 0)
      this.queueMessage("steer", governed.steer, "governor");
    if (event.type === "agent_start") {
      this.budgetReason = undefined;
      this.answered = false;
    }
    if (event.type === "budget_reached") this.budgetReason = event.reason;
    if (
      event.type === "message_start" &&
      event.message.role !== "assistant" &&
      this.queued.delivered(messageText(event.message))
    )
      this.emitQueue();
    if (event.type === "message_end") {
      if (event.message.role === "assistant") this.answered = isFinalAnswer(event.message);
      this.store.appendMessage(event.message);
      this.usage.recordMessage(event.message);
      // A tool runs only once its call is durable (file, or the fleet's journal): a run killed
      // mid-tool then resumes with the "interrupted" result instead of asking for the call again.
      if (event.message.role === "assistant" && event.message.content.some((block) => block.type === "toolCall"))
        return this.flush();
    }
    if (event.type === "turn_end" || event.type === "agent_end") return this.flush();
    return undefined;
  }

  private get sessionsDir(): string | undefined {
    return sessionsDirOf(this.store, this.options.sessionsDir);
  }
}

/** An assistant message after which the loop calls no more tools (it may still go on with queued messages). */
function isFinalAnswer(message: AgentMessage): boolean {
  if (message.role !== "assistant") return false;
  if (message.stopReason !== "stop" && message.stopReason !== "toolUse") return true;
  return !message.content.some((block) => block.type === "toolCall");
}

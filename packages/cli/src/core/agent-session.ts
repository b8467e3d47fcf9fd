import type { Agent, AgentMessage, AgentRunResult, AnyAgentTool } from "@gyre/agent";
import { describeError, type ImageContent, type Model, type ThinkingLevel } from "@gyre/ai";
import {
  answerApproval,
  closeOwned,
  executeOp,
  followPermissionMode,
  followSessionTodos,
  type OpHost,
} from "./agent-session-ops.js";
import { type AgentSessionOptions, createSessionAgent } from "./agent-session-options.js";
import {
  deliverQueued,
  observeAgentEvent,
  type RunHost,
  type RunState,
  raiseBudget,
  runCompaction,
  runOnce,
  runPrompt,
} from "./agent-session-run.js";
import type { RewindPlan } from "./checkpoints/rewind.js";
import type { SessionChanges } from "./checkpoints/types.js";
import type { RewindRequest, RewindTarget } from "./checkpoints/workspace-checkpoints.js";
import { AutoCompaction } from "./compaction/auto-compaction.js";
import { customBaseUrl } from "./config/resolve-model.js";
import { restoreTodos } from "./create-harness-tools.js";
import type { McpResourceCatalog } from "./mcp/mcp-resource-catalog.js";
import type { McpServerStatus } from "./mcp/types.js";
import { QueuedMessages } from "./queued-messages.js";
import { processSecretRegistry } from "./session/redact-secrets.js";
import type { SessionManager } from "./session/session-manager.js";
import { describeTree, type SessionTreeView, sessionsDirOf } from "./session/switch-session.js";
import type { SessionEntry } from "./session/types.js";
import { SessionActions } from "./session-actions.js";
import { SessionEventHub } from "./session-event-hub.js";
import type { NoticeEvent, SessionEvent } from "./session-events.js";
import type { SessionInfo } from "./session-info.js";
import type { SessionOp, SessionOpResult, SessionOpType, SessionRunResult } from "./session-ops.js";
import { type SessionSnapshot, snapshotOf } from "./session-snapshot.js";
import { getLastAssistantText, type SessionStats } from "./session-stats.js";
import { type SessionRestriction, SessionToolset } from "./session-toolset.js";
import { SessionUsage, type TreeSpend, treeSpendOf } from "./session-usage.js";
import type { TodoItem } from "./tools/todo-tool.js";
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
 *
 * This file is the public surface and the admission of ops; the work lives beside it: what runs
 * and what waits in session-actions.ts, each op's work in agent-session-ops.ts, the prompt path
 * and the agent events' bookkeeping in agent-session-run.ts.
 */
export class AgentSession {
  private readonly agent: Agent;
  private store: SessionManager;
  private apiKey: string | undefined;
  private readonly events: SessionEventHub;
  private readonly compaction: AutoCompaction;
  /** Totals of every call this session made, and what subagents still at work spent (the footer's totals are the tree's). */
  private readonly usage = new SessionUsage();
  /** Why runs ended, whether the last one answered, and how many ran (agent-session-run.ts). */
  private readonly run: RunState = {
    runs: 0,
    compactBeforeNextTurn: false,
    lastEndReason: undefined,
    budgetReason: undefined,
    loopReason: undefined,
    answered: false,
  };
  /** Messages handed to the agent's queues and not yet delivered, from whoever queued them. */
  private readonly queued = new QueuedMessages();
  /** What runs now and what waits for its turn (session-actions.ts). */
  private readonly actions: SessionActions;
  private disposed: Promise<void> | undefined;
  private mcpStartup: Promise<string[]> | undefined;
  /** Tools and system prompt, minus what plan mode withholds; `/reload` rebuilds them. */
  private readonly toolset: SessionToolset;
  /** What the prompt path (agent-session-run.ts) and the ops' work (agent-session-ops.ts) reach. */
  private readonly host: RunHost & OpHost;

  constructor(private readonly options: AgentSessionOptions) {
    this.store = options.store;
    this.apiKey = options.apiKey;
    this.compaction = new AutoCompaction(options.compaction ?? {}, options.messages.length);
    this.events = new SessionEventHub(options.extensions);
    this.agent = createSessionAgent(options, {
      apiKey: () => this.apiKey,
      notice: (message) => this.events.notice("listener", message),
      stopToCompact: (turn) =>
        (this.run.compactBeforeNextTurn = this.compaction.needsCompactionAfterTurn(turn, this.agent.state.model)),
      describeUnavailableTool: (name) => this.toolset.describeWithheld(name),
    });
    this.toolset = new SessionToolset(this.agent, options.tools, options.systemPrompt);
    this.host = this.createHost();
    this.actions = new SessionActions({
      agent: this.agent,
      events: this.events,
      queued: this.queued,
      run: this.run,
      execute: (op, signal) => executeOp(this.host, op, signal),
      extensions: options.extensions,
    });
    wireSessionEvents(options, {
      agent: this.agent,
      events: this.events,
      store: () => this.store,
      isBusy: () => this.actions.busy,
      abort: () => void this.abort(),
      queue: (message, kind) => this.actions.queueMessage(kind, message, "extension"),
      start: (message, text) => this.runMessage(message, text),
      onAgentEvent: (event) => observeAgentEvent(this.host, event),
      onSubagentEvent: (parentToolCallId, event) => this.usage.observeSubagent(parentToolCallId, event),
    });
    followPermissionMode(options, this.toolset, this.events);
    followSessionTodos(options, this.events, () => restoreTodos(this.messages, this.entries()));
  }

  /** What modes show: model, thinking level, whether it runs, why the last run ended, the session's id, file and name, totals. */
  get state(): SessionSnapshot {
    return {
      ...snapshotOf({
        agent: this.agent.state,
        store: this.store,
        busy: this.actions.busy,
        compacting: this.compaction.running,
        endReason: this.run.lastEndReason,
        budgetReason: this.run.budgetReason,
        loopReason: this.run.loopReason,
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
    await this.actions.waitTurn(what, options);
  }

  private accept(op: SessionOp, options: SubmitOptions): Promise<unknown> {
    if (op.type === "shutdown") return this.dispose().then(() => ({ disposed: true }));
    if (this.disposed) return Promise.reject(new Error("The session has been disposed; create a new one."));
    switch (op.type) {
      case "steer":
      case "follow_up":
        return Promise.resolve(this.actions.queueText(op.type, op.text));
      case "abort":
        return this.abort().then(() => ({ aborted: true }));
      case "approval_response":
        return new Promise((resolve) => resolve(answerApproval(this.options, op)));
    }
    return this.actions.admit(op, options);
  }

  /**
   * Runs one user request to the end, then delivers what was queued as it ended, each through
   * the same path: threshold compaction, `before_agent_start`, the run, one overflow
   * compact-and-retry (never a loop). `submit({ type: "prompt" })` in one call.
   */
  prompt(input: string, images: ImageContent[] = []): Promise<SessionRunResult> {
    return this.submit({ type: "prompt", text: input, images }) as Promise<SessionRunResult>;
  }

  /** Adds a message to the run in progress at its next turn boundary (or to the next run). */
  steer(text: string): void {
    this.actions.queueText("steer", text);
  }

  /** Queues a message for when the agent would otherwise stop. */
  followUp(text: string): void {
    this.actions.queueText("follow_up", text);
  }

  /** Removes and returns the user's queued, not yet delivered texts (Esc puts them back in the editor). */
  takeQueued(): string[] {
    return this.actions.takeQueued();
  }

  /** Stops the model call, tools and compaction in progress and drops waiting ops; resolves once idle. */
  async abort(): Promise<void> {
    this.actions.stop();
    this.agent.abort();
    await this.actions.whenIdle();
  }

  /** Resolves once no prompt, compaction or run is in progress (at once when idle). */
  whenIdle(): Promise<void> {
    return this.actions.whenIdle();
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
    return raiseBudget(this.host, "budget", signal);
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
    await closeOwned(this.options, this.events);
    await this.store.close();
  }

  /**
   * An extension message sent while no run reads the queues: a run of its own through the prompt
   * path, inside the current action when one is in progress (a command's handler awaits it).
   */
  private runMessage(message: AgentMessage, text: string): Promise<AgentRunResult> {
    const run = (signal: AbortSignal) =>
      runOnce(this.host, text, [], signal, () => this.agent.prompt(message)).then((result) =>
        deliverQueued(this.host, result, signal),
      );
    const signal = this.actions.signal;
    return signal ? run(signal) : this.actions.track(run);
  }

  /** The session's parts and steps as the run and op modules see them; built once, in the constructor. */
  private createHost(): RunHost & OpHost {
    const { options, agent, compaction, toolset, events, queued, usage, run } = this;
    return {
      options,
      agent,
      compaction,
      toolset,
      events,
      queued,
      usage,
      run,
      store: () => this.store,
      apiKey: () => this.apiKey,
      sessionsDir: () => this.sessionsDir,
      flush: () => this.flush(),
      emitQueue: () => this.actions.emitQueue(),
      queueMessage: (kind, message, source) => this.actions.queueMessage(kind, message, source),
      runPrompt: (input, images, signal) => runPrompt(this.host, input, images, signal),
      waitForMcp: () => this.waitForMcp(),
      mcpStarted: () => this.mcpStartup !== undefined,
      runCompaction: (reason, signal, focus) => runCompaction(this.host, reason, signal, focus),
      replaceStore: (store) => {
        this.store = store;
      },
      setModel: (model, apiKey) => this.setModel(model, apiKey),
      setThinkingLevel: (level) => this.setThinkingLevel(level),
    };
  }

  private get sessionsDir(): string | undefined {
    return sessionsDirOf(this.store, this.options.sessionsDir);
  }
}

import type { Agent, AgentEvent, AgentMessage, AgentRunResult, AnyAgentTool } from "@gyre/agent";
import { describeError, type ImageContent, type Model, type ThinkingLevel } from "@gyre/ai";
import { type AgentSessionOptions, createSessionAgent } from "./agent-session-options.js";
import type { RewindResult } from "./checkpoints/rewind.js";
import type { RewindRequest } from "./checkpoints/workspace-checkpoints.js";
import { AutoCompaction } from "./compaction/auto-compaction.js";
import { customBaseUrl } from "./config/resolve-model.js";
import { systemPromptForRun } from "./extensions/extension-bridge.js";
import type { SessionEndReason } from "./governor/governor.js";
import { raiseBudgetIfAsked } from "./governor/raise-budget.js";
import { addProcessSecret } from "./session/redact-secrets.js";
import type { SessionManager } from "./session/session-manager.js";
import {
  createSiblingStore,
  describeTree,
  messageText,
  moveLeaf,
  openStore,
  type SessionTreeView,
  sessionsDirOf,
} from "./session/switch-session.js";
import type { SessionEntry } from "./session/types.js";
import { SessionEventHub } from "./session-event-hub.js";
import type { CompactionReason, NoticeEvent, SessionEvent } from "./session-events.js";
import { type SessionSnapshot, snapshotOf } from "./session-snapshot.js";
import { getLastAssistantText, type SessionStats } from "./session-stats.js";
import { type SessionRestriction, SessionToolset } from "./session-toolset.js";
import { SessionUsage, type TreeSpend, treeSpendOf } from "./session-usage.js";
import { runRecordedUserShell, type UserShellResult } from "./user-shell.js";
import { wireSessionEvents } from "./wire-session-events.js";

export type { AgentSessionOptions } from "./agent-session-options.js";
export type { SessionEvent } from "./session-events.js";
export type { SessionSnapshot } from "./session-snapshot.js";

/** What `setRestriction` takes: which tools the model is not offered, and a system prompt note. */
export type { SessionRestriction } from "./session-toolset.js";

/** What `prompt` resolves to: the messages the request added and why it ended (the agent's reasons, or `loop`). */
export type SessionRunResult = { messages: AgentMessage[]; reason: SessionEndReason };

/**
 * The one door modes use into a conversation: an `Agent` plus persistence, compaction,
 * extensions and session switching. Events are persisted as they happen (a message when it
 * ends; a flush at every turn end). One user action at a time runs under the session's own
 * `AbortController`, so `abort()` stops a model call, a tool or a compaction alike.
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
  /** Texts given to `steer`/`followUp` not yet delivered (for `takeQueued`). */
  private readonly queued: string[] = [];
  /** Runs started so far; tells a prompt handled by a command whether the command ran one. */
  private runs = 0;
  private controller: AbortController | undefined;
  private active: Promise<unknown> | undefined;
  private disposed = false;
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
    });
    this.toolset = new SessionToolset(this.agent, options.tools, options.systemPrompt);
    wireSessionEvents(options, {
      agent: this.agent,
      events: this.events,
      store: () => this.store,
      isBusy: () => this.busy,
      abort: () => void this.abort(),
      start: (message, text) => this.runMessage(message, text),
      onAgentEvent: (event) => this.onAgentEvent(event),
      onSubagentEvent: (parentToolCallId, event) => this.usage.observeSubagent(parentToolCallId, event),
    });
  }

  /** What modes show: model, thinking level, whether it runs, why the last run ended, the session's id, file and name, totals. */
  get state(): SessionSnapshot {
    return snapshotOf({
      agent: this.agent.state,
      store: this.store,
      busy: this.busy,
      compacting: this.compaction.running,
      endReason: this.lastEndReason,
      budgetReason: this.budgetReason,
      loopReason: this.loopReason,
      stats: this.getStats(),
    });
  }

  get messages(): readonly AgentMessage[] {
    return this.agent.state.messages;
  }

  /** Every session event, in order; returns the unsubscribe function. A throwing listener becomes a notice. */
  subscribe(listener: (event: SessionEvent) => void): () => void {
    return this.events.subscribe(listener);
  }

  /**
   * Runs one user request to the end, then delivers what was queued as it ended, each through
   * the same path: threshold compaction, `before_agent_start`, the run, one overflow
   * compact-and-retry (never a loop). Throws while another prompt runs: use `steer`/`followUp`.
   */
  prompt(input: string, images: ImageContent[] = []): Promise<SessionRunResult> {
    return this.track(async (signal) => {
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
    });
  }

  /** Adds a message to the run in progress at its next turn boundary (or to the next run). */
  steer(text: string): void {
    this.queued.push(text);
    this.agent.steer(text);
  }

  /** Queues a message for when the agent would otherwise stop. */
  followUp(text: string): void {
    this.queued.push(text);
    this.agent.followUp(text);
  }

  /** Removes and returns the queued, not yet delivered messages (Esc puts them back in the editor). */
  takeQueued(): string[] {
    this.agent.clearQueues();
    return this.queued.splice(0);
  }

  /** Stops the model call, tools and compaction in progress; resolves once the session is idle. */
  async abort(): Promise<void> {
    this.controller?.abort();
    this.agent.abort();
    await this.whenIdle();
  }

  /** Resolves once no prompt, compaction or run is in progress (at once when idle). */
  async whenIdle(): Promise<void> {
    while (this.busy) {
      await this.active?.catch(() => {});
      await this.agent.waitForIdle();
    }
  }

  /**
   * Summarises the older part of the branch now (`focus` steers the summary). Returns whether it
   * compacted; a failure is reported by `compaction_end` with `error`. Stopped by `abort()`.
   */
  compact(focus?: string): Promise<boolean> {
    return this.track((signal) => this.runCompaction("manual", signal, focus));
  }

  setModel(model: Model, apiKey?: string): void {
    const sameProvider = model.provider === this.agent.state.model.provider;
    this.agent.setModel(model);
    // A key given at start-up (--api-key) stays with its provider; another provider resolves its own.
    if (apiKey !== undefined) this.apiKey = apiKey;
    else if (!sameProvider) this.apiKey = this.options.getApiKey?.(model.provider);
    addProcessSecret(this.apiKey);
    this.store.appendModelChange(model.provider, model.id, customBaseUrl(model));
  }

  /** Replaces the tools; a run in progress gets them from its next turn (an MCP server's list changed). */
  setTools(tools: AnyAgentTool[]): void {
    this.toolset.setTools(tools);
  }

  /**
   * Plan mode and the like: tools withheld from the model (not offered at all, so not callable)
   * and a note appended to the system prompt. Tools change from the next model call, the prompt
   * from the next run; `undefined` lifts it. The conversation is kept either way.
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

  setThinkingLevel(level: ThinkingLevel): void {
    this.agent.setThinkingLevel(level);
    this.store.appendThinkingLevelChange(level);
  }

  /** Starts a new session (in memory when this one is). Not while running. */
  newSession(): Promise<void> {
    this.assertIdle("start a new session");
    return this.switchTo(createSiblingStore(this.store, this.sessionsDir));
  }

  /** Continues the session a file path or id prefix names. Not while running; throws a `CliError` naming the problem. */
  async open(pathOrIdPrefix: string): Promise<void> {
    this.assertIdle("switch sessions");
    await this.switchTo(
      await openStore({ sessionsDir: this.sessionsDir, cwd: this.store.cwd, pathOrId: pathOrIdPrefix }),
    );
  }

  /** Continues in a copy of the current branch (from `entryId` when given); the original is unchanged. */
  async fork(options: { entryId?: string } = {}): Promise<void> {
    this.assertIdle("fork");
    if (options.entryId) this.store.branch(options.entryId);
    await this.switchTo(await this.store.fork());
  }

  /** /tree: continues from `entryId`; a user message comes back as `editText` to edit and resend. */
  async navigate(entryId: string): Promise<{ editText?: string }> {
    this.assertIdle("move in the tree");
    const moved = moveLeaf(this.store, entryId);
    await this.switchTo(this.store, { closePrevious: false });
    return moved;
  }

  /**
   * Back to before a user message (or to a checkpoint entry): files, conversation or both
   * (docs/design/rewind.md). Not while running; throws when the session has no checkpoints.
   */
  async rewind(request: RewindRequest): Promise<RewindResult> {
    this.assertIdle("rewind");
    if (!this.options.checkpoints) throw new Error("Rewind is not available in this session.");
    const result = await this.options.checkpoints.rewind(request);
    if (request.restore !== "code") await this.switchTo(this.store, { closePrevious: false });
    return result;
  }

  /**
   * Runs a shell command the user typed (`!cmd`) as the session's one action, so `abort()` stops
   * it, with checkpoints around it. With `addToContext` its command and output join the
   * conversation as a user message the next prompt carries; otherwise they are only recorded (a
   * custom entry the model never sees). Throws while another action runs.
   */
  runShell(
    command: string,
    options: { addToContext: boolean; onOutput?: (tail: string) => void },
  ): Promise<UserShellResult> {
    const shell = this.options.userShell;
    if (!shell) throw new Error("Shell commands are not available in this session.");
    return this.track(async (signal) => {
      const turns = this.options.checkpoints?.turns;
      const target = { agent: this.agent, store: this.store, ...(turns ? { turns } : {}) };
      const result = await runRecordedUserShell(shell, command, { ...options, signal }, target);
      await this.flush();
      return result;
    });
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

  /** Tells extensions the session ends, aborts work in progress, persists, and closes the store. */
  async dispose(): Promise<void> {
    if (!this.disposed) {
      this.disposed = true;
      await this.options.extensions?.emit({ type: "session_shutdown" });
    }
    await this.abort();
    await this.flush();
    await this.store.close();
  }

  /** Runs `work` as the session's one action, under a fresh `AbortController`. */
  private async track<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.active) throw new Error("The session is busy: use steer() or followUp(), or await abort() first.");
    const controller = new AbortController();
    this.controller = controller;
    const run = Promise.resolve().then(() => work(controller.signal));
    this.active = run;
    try {
      return await run;
    } finally {
      this.active = undefined;
      this.controller = undefined;
    }
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
      // A long tool loop pauses between turns to compact, then goes on (if compaction cannot help,
      // it goes on anyway: an overflow is then handled below, once).
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
      result = await this.runOnce(this.queued[0] ?? "", [], signal, () => this.agent.continue());
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
      },
    });
  }

  /** Replaces the store and conversation (new session, open, fork, tree). */
  private async switchTo(store: SessionManager, options: { closePrevious?: boolean } = {}): Promise<void> {
    this.assertIdle("switch sessions");
    await this.flush();
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
    if (governed?.steer && event.type === "turn_end" && event.toolResults.length > 0) this.agent.steer(governed.steer);
    if (event.type === "agent_start") this.budgetReason = undefined;
    if (event.type === "budget_reached") this.budgetReason = event.reason;
    if (event.type === "message_start" && event.message.role === "user") {
      const index = this.queued.indexOf(messageText(event.message));
      if (index >= 0) this.queued.splice(index, 1);
    }
    if (event.type === "message_end") {
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

  private assertIdle(action: string): void {
    if (this.busy) throw new Error(`The agent is running; abort first to ${action}.`);
  }
}

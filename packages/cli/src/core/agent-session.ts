import {
  Agent,
  type AgentBudgets,
  type AgentEvent,
  type AgentMessage,
  type AgentRunResult,
  type AnyAgentTool,
  type BeforeToolCallInput,
  type BeforeToolCallResult,
} from "@gyre/agent";
import type { AssistantMessage, ImageContent, Model, RetryOptions, ThinkingLevel } from "@gyre/ai";
import type { SessionManager } from "./session/session-manager.js";
import { computeSessionStats, getLastAssistantText, type SessionStats } from "./session-stats.js";

/** Harness events the session adds to the agent's (JSON mode and RPC carry them as they are). */
export type SessionEvent =
  | AgentEvent
  | { type: "compaction_start"; reason: "threshold" | "overflow" | "manual" }
  | { type: "compaction_end"; reason: "threshold" | "overflow" | "manual"; tokensBefore?: number; error?: string }
  | { type: "session_changed"; sessionId: string; sessionFile: string | undefined };

/** Summarises older history; returns the messages to continue with, or throws with a reason. */
export type Compactor = (input: {
  reason: "threshold" | "overflow" | "manual";
  model: Model;
  apiKey: string | undefined;
  focus?: string;
  signal: AbortSignal;
}) => Promise<{ messages: AgentMessage[]; tokensBefore: number }>;

export type AgentSessionOptions = {
  model: Model;
  apiKey: string | undefined;
  systemPrompt: string;
  thinkingLevel: ThinkingLevel;
  tools: AnyAgentTool[];
  messages: AgentMessage[];
  store: SessionManager;
  budgets?: AgentBudgets;
  retry?: RetryOptions;
  /** Resolves a key for another provider after `setModel`. */
  getApiKey?: (provider: string) => string | undefined;
  compactor?: Compactor;
  /** Compact before a prompt when the last call used more than `contextWindow - reserveTokens`. */
  autoCompaction?: { enabled: boolean; reserveTokens: number };
  isContextOverflow?: (message: AssistantMessage) => boolean;
  beforeToolCall?: (input: BeforeToolCallInput, signal: AbortSignal) => Promise<BeforeToolCallResult | undefined>;
};

/**
 * The one core every mode drives: an `Agent` plus persistence, compaction and stats. Events are
 * persisted as they happen (a message when it ends; a flush at every turn end), so a crash loses
 * at most the entry being written. Modes subscribe to `SessionEvent`s and never touch the agent.
 */
export class AgentSession {
  readonly agent: Agent;
  private store: SessionManager;
  private apiKey: string | undefined;
  private readonly listeners = new Set<(event: SessionEvent) => void>();
  private lastEndReason: AgentRunResult["reason"] | undefined;
  private budgetReason: string | undefined;

  constructor(private readonly options: AgentSessionOptions) {
    this.store = options.store;
    this.apiKey = options.apiKey;
    this.agent = new Agent({
      model: options.model,
      systemPrompt: options.systemPrompt,
      thinkingLevel: options.thinkingLevel,
      tools: options.tools,
      messages: options.messages,
      budgets: options.budgets,
      streamOptions: options.retry ? { retry: options.retry } : {},
      getApiKey: (provider) =>
        provider === this.agent.state.model.provider ? this.apiKey : options.getApiKey?.(provider),
      beforeToolCall: options.beforeToolCall,
      onListenerError: (error, event) => {
        process.stderr.write(`gyre: a listener failed on "${event.type}": ${(error as Error).message}\n`);
      },
    });
    this.agent.subscribe((event) => this.onAgentEvent(event));
  }

  get sessionId(): string {
    return this.store.id;
  }

  get sessionFile(): string | undefined {
    return this.store.path;
  }

  get session(): SessionManager {
    return this.store;
  }

  get messages(): readonly AgentMessage[] {
    return this.agent.state.messages;
  }

  get isRunning(): boolean {
    return this.agent.state.isRunning;
  }

  /** The sentence of the budget that ended the last run, if one did. */
  get lastBudgetReason(): string | undefined {
    return this.budgetReason;
  }

  /** Why the last run ended. */
  get endReason(): AgentRunResult["reason"] | undefined {
    return this.lastEndReason;
  }

  subscribe(listener: (event: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Runs one user request to the end. Compacts first when the context is near the window;
   * when the provider reports a context overflow, compacts once and retries — never loops.
   */
  async prompt(text: string, images: ImageContent[] = []): Promise<AgentRunResult> {
    await this.maybeCompact();
    let result = await this.agent.prompt(text, { images });
    const last = this.agent.state.messages.at(-1);
    if (last?.role === "assistant" && this.options.isContextOverflow?.(last) && this.options.compactor) {
      const compacted = await this.compact("overflow");
      if (compacted) result = await this.agent.continue().catch(() => result);
    }
    this.lastEndReason = result.reason;
    await this.flush();
    return result;
  }

  steer(text: string): void {
    this.agent.steer(text);
  }

  followUp(text: string): void {
    this.agent.followUp(text);
  }

  abort(): void {
    this.agent.abort();
  }

  setModel(model: Model, apiKey?: string): void {
    this.agent.setModel(model);
    if (apiKey !== undefined) this.apiKey = apiKey;
    else this.apiKey = this.options.getApiKey?.(model.provider);
    this.store.appendModelChange(model.provider, model.id);
  }

  setThinkingLevel(level: ThinkingLevel): void {
    this.agent.setThinkingLevel(level);
    this.store.appendThinkingLevelChange(level);
  }

  /** Replaces the store and conversation (new session, resume, fork). Not while running. */
  async switchStore(store: SessionManager, options: { closePrevious?: boolean } = {}): Promise<void> {
    await this.flush();
    if (options.closePrevious !== false) await this.store.close();
    this.store = store;
    store.repairInterruptedToolCalls();
    this.agent.replaceMessages(store.buildContext().messages);
    this.emit({ type: "session_changed", sessionId: store.id, sessionFile: store.path });
  }

  /** Manual or automatic compaction; returns whether the context was replaced. */
  async compact(reason: "threshold" | "overflow" | "manual", focus?: string): Promise<boolean> {
    const compactor = this.options.compactor;
    if (!compactor) return false;
    this.emit({ type: "compaction_start", reason });
    try {
      const result = await compactor({
        reason,
        model: this.agent.state.model,
        apiKey: this.apiKey,
        ...(focus ? { focus } : {}),
        signal: AbortSignal.timeout(300_000),
      });
      this.agent.replaceMessages(result.messages);
      this.emit({ type: "compaction_end", reason, tokensBefore: result.tokensBefore });
      return true;
    } catch (error) {
      this.emit({ type: "compaction_end", reason, error: (error as Error).message });
      return false;
    }
  }

  getStats(): SessionStats {
    return computeSessionStats(this.agent.state.messages);
  }

  getLastAssistantText(): string | undefined {
    return getLastAssistantText(this.agent.state.messages);
  }

  /** Waits for every pending write and fsyncs the session file. */
  async flush(): Promise<void> {
    try {
      await this.store.flush();
    } catch (error) {
      process.stderr.write(`gyre: could not write the session file: ${(error as Error).message}\n`);
    }
  }

  /** Aborts work in progress, persists, and closes the store. */
  async dispose(): Promise<void> {
    this.agent.abort();
    await this.agent.waitForIdle();
    await this.flush();
    await this.store.close();
  }

  private async maybeCompact(): Promise<void> {
    const auto = this.options.autoCompaction;
    if (!auto?.enabled || !this.options.compactor) return;
    const { contextTokens } = this.getStats();
    const limit = this.agent.state.model.contextWindow - auto.reserveTokens;
    if (contextTokens > 0 && contextTokens > limit) await this.compact("threshold");
  }

  private onAgentEvent(event: AgentEvent): Promise<void> | undefined {
    this.emit(event);
    if (event.type === "agent_start") this.budgetReason = undefined;
    if (event.type === "budget_reached") this.budgetReason = event.reason;
    if (event.type === "message_end") this.store.appendMessage(event.message);
    if (event.type === "turn_end" || event.type === "agent_end") return this.flush();
    return undefined;
  }

  private emit(event: SessionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        process.stderr.write(`gyre: an event listener failed: ${(error as Error).message}\n`);
      }
    }
  }
}

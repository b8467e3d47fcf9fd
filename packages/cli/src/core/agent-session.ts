import {
  Agent,
  type AgentBudgets,
  type AgentEvent,
  type AgentMessage,
  type AgentRunResult,
  type AnyAgentTool,
  type BeforeToolCallInput,
  type BeforeToolCallResult,
  createUserMessage,
} from "@gyre/agent";
import type { ImageContent, Message, Model, RetryOptions, ThinkingLevel } from "@gyre/ai";
import { compact } from "./compaction/compact.js";
import { contextTokensFromUsage, estimateContextTokens } from "./compaction/estimate-tokens.js";
import { isContextOverflow } from "./compaction/is-context-overflow.js";
import { compactionSizes, shouldCompact } from "./compaction/should-compact.js";
import { customBaseUrl } from "./config/resolve-model.js";
import type { ExtensionHost, ExtensionRunner } from "./extensions/extension-runner.js";
import type { InputResolution } from "./extensions/resolve-input.js";
import type { ExtensionMessage } from "./extensions/types.js";
import { addProcessSecret } from "./session/redact-secrets.js";
import type { SessionManager } from "./session/session-manager.js";
import { computeSessionStats, getLastAssistantText, type SessionStats, UsageLedger } from "./session-stats.js";

/** Harness events the session adds to the agent's (JSON mode and RPC carry them as they are). */
export type SessionEvent =
  | AgentEvent
  | { type: "compaction_start"; reason: "threshold" | "overflow" | "manual" }
  | { type: "compaction_end"; reason: "threshold" | "overflow" | "manual"; tokensBefore?: number; error?: string }
  | { type: "session_changed"; sessionId: string; sessionFile: string | undefined };

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
  /** A model stream that sends nothing for this long fails (default: the provider layer's 120 s). */
  idleTimeoutMs?: number;
  /** Resolves a key for another provider after `setModel`. */
  getApiKey?: (provider: string) => string | undefined;
  /**
   * Automatic compaction: before a prompt when the last call used more than
   * `contextWindow - reserveTokens`, and once after a context-overflow error. Default on.
   */
  compaction?: { enabled?: boolean; reserveTokens?: number; keepRecentTokens?: number };
  beforeToolCall?: (input: BeforeToolCallInput, signal: AbortSignal) => Promise<BeforeToolCallResult | undefined>;
  /** Extensions: their hooks run in the loop and every `SessionEvent` reaches their handlers. */
  extensions?: ExtensionRunner;
  /** Turns slash input into a prompt (templates, skills) or runs a command; default: text as it is. */
  resolveInput?: (text: string) => Promise<InputResolution>;
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
  /**
   * Message count when the context was last replaced (load, resume, compaction): usage reported
   * before then may describe a context that no longer exists.
   */
  private compactedAt: number;
  /** Runs started by extension messages; `prompt()` waits for them so print mode sees the last answer. */
  private readonly extensionRuns = new Set<Promise<AgentRunResult>>();
  /** True from `agent_end` until the run settles: a message sent then starts the next run. */
  private runEnding = false;
  private disposed = false;
  /** Totals of every call this session made; built from the file on first use, then kept up. */
  private ledger: UsageLedger | undefined;

  constructor(private readonly options: AgentSessionOptions) {
    this.store = options.store;
    this.compactedAt = options.messages.length;
    this.apiKey = options.apiKey;
    const extensions = options.extensions;
    this.agent = new Agent({
      model: options.model,
      systemPrompt: options.systemPrompt,
      thinkingLevel: options.thinkingLevel,
      tools: options.tools,
      messages: options.messages,
      budgets: options.budgets,
      streamOptions: {
        ...(options.retry ? { retry: options.retry } : {}),
        ...(options.idleTimeoutMs ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
      },
      getApiKey: (provider) =>
        provider === this.agent.state.model.provider ? this.apiKey : options.getApiKey?.(provider),
      beforeToolCall: composeBeforeToolCall(options.beforeToolCall, extensions),
      ...(extensions
        ? {
            afterToolCall: (input) => extensions.afterToolCall(input),
            transformContext: (messages) =>
              extensions.hasHandlers("context") ? extensions.transformContext(messages) : messages,
            convertToLlm: convertCustomMessagesToUser,
          }
        : {}),
      onListenerError: (error, event) => {
        process.stderr.write(`gyre: a listener failed on "${event.type}": ${(error as Error).message}\n`);
      },
    });
    this.agent.subscribe(async (event) => {
      const flushed = this.onAgentEvent(event);
      await extensions?.emit(event);
      await flushed;
    });
    extensions?.bind(this.createExtensionHost());
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
  async prompt(input: string, images: ImageContent[] = []): Promise<AgentRunResult> {
    const resolved: InputResolution = this.options.resolveInput
      ? await this.options.resolveInput(input)
      : { kind: "prompt", text: input };
    if (resolved.kind === "handled") {
      const result = (await this.settleExtensionRuns()) ?? { messages: [], reason: "stop" };
      this.lastEndReason = result.reason;
      await this.flush();
      return result;
    }
    const text = resolved.text;
    await this.maybeCompact();
    await this.prepareSystemPrompt(text, images);
    let result = await this.agent.prompt(text, { images });
    const last = this.agent.state.messages.at(-1);
    // Compact once and retry once; a second overflow is reported, never looped on.
    if (this.autoCompaction && last?.role === "assistant" && isContextOverflow(last)) {
      if (await this.compact("overflow")) result = await this.agent.continue();
    }
    result = (await this.settleExtensionRuns()) ?? result;
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
    const sameProvider = model.provider === this.agent.state.model.provider;
    this.agent.setModel(model);
    // A key given at start-up (--api-key) stays with its provider; another provider resolves its own.
    if (apiKey !== undefined) this.apiKey = apiKey;
    else if (!sameProvider) this.apiKey = this.options.getApiKey?.(model.provider);
    addProcessSecret(this.apiKey);
    this.store.appendModelChange(model.provider, model.id, customBaseUrl(model));
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
    this.ledger = undefined;
    store.repairInterruptedToolCalls();
    const messages = store.buildContext().messages;
    this.agent.replaceMessages(messages);
    this.compactedAt = messages.length;
    this.emit({ type: "session_changed", sessionId: store.id, sessionFile: store.path });
  }

  /**
   * Summarises the older part of the branch into a `compaction` entry (the file keeps every
   * entry) and continues with the summary plus the recent turns. Returns whether it compacted.
   */
  async compact(reason: "threshold" | "overflow" | "manual", focus?: string): Promise<boolean> {
    this.emit({ type: "compaction_start", reason });
    try {
      const data = await compact({
        branchEntries: this.store.getBranch(),
        model: this.agent.state.model,
        ...(this.apiKey ? { apiKey: this.apiKey } : {}),
        ...(focus ? { focus } : {}),
        keepRecentTokens: this.compactionSizes().keepRecentTokens,
        signal: AbortSignal.timeout(300_000),
      });
      this.store.appendCompaction(data);
      this.ledger?.add(data.usage);
      const messages = this.store.buildContext().messages;
      // A failed answer at the end (the overflow itself) is not history to continue from.
      const last = messages.at(-1);
      if (last?.role === "assistant" && (last.stopReason === "error" || last.stopReason === "aborted")) messages.pop();
      this.agent.replaceMessages(messages);
      this.compactedAt = messages.length;
      await this.flush();
      this.emit({ type: "compaction_end", reason, tokensBefore: data.tokensBefore });
      return true;
    } catch (error) {
      this.emit({ type: "compaction_end", reason, error: (error as Error).message });
      return false;
    }
  }

  getStats(): SessionStats {
    this.ledger ??= UsageLedger.fromEntries(this.store.getEntries());
    return computeSessionStats(this.agent.state.messages, {
      ledger: this.ledger,
      contextTokens: this.currentContextTokens(),
    });
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
    if (!this.disposed) {
      this.disposed = true;
      await this.options.extensions?.emit({ type: "session_shutdown" });
    }
    this.agent.abort();
    await this.agent.waitForIdle();
    await this.flush();
    await this.store.close();
  }

  private get autoCompaction(): boolean {
    return this.options.compaction?.enabled !== false;
  }

  /**
   * Tokens the next call will send: the last call's reported usage, or — right after a
   * compaction, before any new answer — an estimate of the compacted context (the old usage
   * describes the context before compaction and would trigger another one).
   */
  private currentContextTokens(): number {
    const messages = this.agent.state.messages;
    for (let index = messages.length - 1; index >= this.compactedAt; index--) {
      const message = messages[index];
      if (message?.role !== "assistant") continue;
      const seen = contextTokensFromUsage(message.usage);
      if (seen > 0) return seen;
    }
    return estimateContextTokens(messages);
  }

  private compactionSizes(): { reserveTokens: number; keepRecentTokens: number } {
    return compactionSizes(this.agent.state.model.contextWindow, this.options.compaction);
  }

  private async maybeCompact(): Promise<void> {
    if (!this.autoCompaction) return;
    const { reserveTokens } = this.compactionSizes();
    const contextTokens = this.currentContextTokens();
    if (shouldCompact({ contextTokens, model: this.agent.state.model, reserveTokens })) await this.compact("threshold");
  }

  private onAgentEvent(event: AgentEvent): Promise<void> | undefined {
    this.notifyListeners(event);
    if (event.type === "agent_start") {
      this.budgetReason = undefined;
      this.runEnding = false;
    }
    if (event.type === "agent_end") this.runEnding = true;
    if (event.type === "budget_reached") this.budgetReason = event.reason;
    if (event.type === "message_end") {
      this.store.appendMessage(event.message);
      if (event.message.role === "assistant") this.ledger?.add(event.message.usage);
    }
    if (event.type === "turn_end" || event.type === "agent_end") return this.flush();
    return undefined;
  }

  private emit(event: SessionEvent): void {
    this.notifyListeners(event);
    void this.options.extensions?.emit(event);
  }

  private notifyListeners(event: SessionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        process.stderr.write(`gyre: an event listener failed: ${(error as Error).message}\n`);
      }
    }
  }

  /** What extensions may do with this session (see `ExtensionAPI`). */
  private createExtensionHost(): ExtensionHost {
    return {
      sessionId: () => this.store.id,
      sessionFile: () => this.store.path,
      model: () => this.agent.state.model,
      isIdle: () => !this.isRunning,
      abort: () => this.abort(),
      appendEntry: (customType, data) => {
        this.store.appendCustom(customType, data);
      },
      getEntries: (customType) =>
        this.store
          .getBranch()
          .flatMap((entry) =>
            entry.type === "custom" && entry.customType === customType
              ? [{ customType, data: entry.data, timestamp: entry.timestamp }]
              : [],
          ),
      sendMessage: (message, options) => this.deliverExtensionMessage(message, options.deliverAs),
    };
  }

  private async deliverExtensionMessage(message: ExtensionMessage, deliverAs?: "steer" | "followUp"): Promise<void> {
    const agentMessage: AgentMessage =
      typeof message === "string"
        ? createUserMessage(message)
        : {
            role: "custom",
            customType: message.customType,
            content: message.content,
            display: message.display ?? true,
            ...(message.details !== undefined ? { details: message.details } : {}),
            timestamp: Date.now(),
          };
    if (this.isRunning && !this.runEnding) {
      if (deliverAs === "followUp") this.agent.followUp(agentMessage);
      else this.agent.steer(agentMessage);
      return;
    }
    // Idle, or the run is past the point where it reads its queues: start the next run after it.
    const ending = this.isRunning;
    const text = typeof agentMessage.content === "string" ? agentMessage.content : "";
    const run = this.agent
      .waitForIdle()
      .then(() => this.prepareSystemPrompt(text, []))
      .then(() => this.agent.prompt(agentMessage));
    this.extensionRuns.add(run);
    const settled = run.finally(async () => {
      this.extensionRuns.delete(run);
      await this.flush();
    });
    // A handler of the ending run must not wait for the next one: that run waits for the handler.
    if (ending) settled.catch(() => {});
    else await settled;
  }

  /** Lets `before_agent_start` handlers set the system prompt of the run about to start. */
  private async prepareSystemPrompt(prompt: string, images: ImageContent[]): Promise<void> {
    const extensions = this.options.extensions;
    if (!extensions?.hasHandlers("before_agent_start")) return;
    const systemPrompt = this.options.systemPrompt;
    this.agent.setSystemPrompt(await extensions.beforeAgentStart({ prompt, images, systemPrompt }));
  }

  /** Waits for runs extensions started; resolves with the last one's result, if any ran. */
  private async settleExtensionRuns(): Promise<AgentRunResult | undefined> {
    let last: AgentRunResult | undefined;
    while (this.extensionRuns.size > 0) {
      const results = await Promise.allSettled([...this.extensionRuns]);
      for (const settled of results) if (settled.status === "fulfilled") last = settled.value;
    }
    return last;
  }
}

/** Extension hooks run after the session's own `beforeToolCall`, if it did not block. */
function composeBeforeToolCall(
  own: AgentSessionOptions["beforeToolCall"],
  extensions: ExtensionRunner | undefined,
): AgentSessionOptions["beforeToolCall"] {
  if (!extensions) return own;
  return async (input, signal) => {
    const verdict = await own?.(input, signal);
    if (verdict?.block) return verdict;
    return extensions.beforeToolCall(input);
  };
}

/** With extensions, custom messages (from `sendMessage`) reach the model as user text. */
function convertCustomMessagesToUser(messages: AgentMessage[]): Message[] {
  return messages.map(
    (message): Message =>
      message.role === "custom" ? { role: "user", content: message.content, timestamp: message.timestamp } : message,
  );
}

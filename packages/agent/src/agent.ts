import {
  type AssistantMessage,
  applyAssistantMessageEvent,
  describeError,
  type ImageContent,
  type Model,
  stream,
  type TextContent,
  type ThinkingLevel,
} from "@gyre/ai";
import { runAgentLoopWithListener } from "./run-agent-loop.js";
import type { AgentEvent, AgentLoopConfig, AgentMessage, AgentRunResult, AnyAgentTool } from "./types.js";

/** How queued steering or follow-up messages are delivered at a turn boundary. */
export type QueueMode = "one-at-a-time" | "all";

/** What an `Agent` holds. Read through `agent.state`; change through the agent's methods. */
export type AgentState = {
  systemPrompt: string;
  model: Model;
  thinkingLevel: ThinkingLevel;
  tools: AnyAgentTool[];
  /** The whole conversation, appended as each message ends. */
  messages: AgentMessage[];
  /** The assistant message being streamed, updated per delta; undefined between messages. */
  streamingMessage: AssistantMessage | undefined;
  /** Ids of the tool calls running now. */
  pendingToolCalls: ReadonlySet<string>;
  /** The error message of the last run's failed or aborted model call, if any. */
  error: string | undefined;
  /**
   * Listener failures, newest last (at most 20), when no `onListenerError` is given: the agent
   * never prints, so a UI can show these.
   */
  listenerErrors: { eventType: AgentEvent["type"]; message: string }[];
  isRunning: boolean;
};

/** Receives every event after the agent updated its state; awaited in subscription order. */
export type AgentListener = (event: AgentEvent, signal: AbortSignal) => void | Promise<void>;

export type AgentOptions = AgentLoopConfig & {
  model: Model;
  systemPrompt?: string;
  thinkingLevel?: ThinkingLevel;
  tools?: AnyAgentTool[];
  messages?: AgentMessage[];
  /** Default "one-at-a-time": each turn boundary delivers one steering message. */
  steeringMode?: QueueMode;
  /** Default "one-at-a-time": each time the agent would stop, one follow-up starts a new turn. */
  followUpMode?: QueueMode;
  /** Prompt-cache / session key sent with every model call; changeable later via `agent.sessionId`. */
  sessionId?: string;
  /** Called when a listener throws; the run goes on. Default: recorded in `state.listenerErrors`. */
  onListenerError?: (error: unknown, event: AgentEvent) => void;
};

/**
 * A stateful agent for apps: holds the conversation and tools, runs the loop for each prompt,
 * queues user input that arrives while it works, and fans events out to subscribers. One run at
 * a time; everything the run does is visible as events and in `state`.
 */
export class Agent {
  private readonly current: AgentState;
  private readonly pending = new Set<string>();
  private readonly listeners: AgentListener[] = [];
  private readonly steeringQueue: AgentMessage[] = [];
  private readonly followUpQueue: AgentMessage[] = [];
  private controller: AbortController | undefined;
  private idle: Promise<void> = Promise.resolve();
  /** Sent as `streamOptions.sessionId`; settable between and during runs (read at each model call). */
  sessionId: string | undefined;

  constructor(private readonly options: AgentOptions) {
    this.current = {
      systemPrompt: options.systemPrompt ?? "",
      model: options.model,
      thinkingLevel: options.thinkingLevel ?? "off",
      tools: [...(options.tools ?? [])],
      messages: [...(options.messages ?? [])],
      streamingMessage: undefined,
      pendingToolCalls: this.pending,
      error: undefined,
      listenerErrors: [],
      isRunning: false,
    };
    this.sessionId = options.sessionId ?? options.streamOptions?.sessionId;
  }

  /** The live state; do not mutate it directly. */
  get state(): Readonly<AgentState> {
    return this.current;
  }

  setModel(model: Model): void {
    this.current.model = model;
  }

  setSystemPrompt(systemPrompt: string): void {
    this.current.systemPrompt = systemPrompt;
  }

  setThinkingLevel(thinkingLevel: ThinkingLevel): void {
    this.current.thinkingLevel = thinkingLevel;
  }

  /** Replaces the tools from the next model call on; the agent keeps its own copy of the array. */
  setTools(tools: AnyAgentTool[]): void {
    this.current.tools = [...tools];
  }

  /** Replaces the conversation (e.g. a resumed session). Not while running. */
  replaceMessages(messages: AgentMessage[]): void {
    this.assertIdle("replace the messages");
    this.current.messages = [...messages];
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: AgentListener): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }

  /**
   * Starts a run with a user prompt (text, with optional images) or prepared messages, and
   * resolves when it ends. Rejects (never throws) if a run is in progress: use `steer` or `followUp`.
   */
  async prompt(
    input: string | AgentMessage | AgentMessage[],
    options: { images?: ImageContent[] } = {},
  ): Promise<AgentRunResult> {
    this.assertIdle("prompt", true);
    const prompts = typeof input === "string" ? [createUserMessage(input, options.images)] : [input].flat();
    return this.run(prompts);
  }

  /**
   * Runs again from the current history without a new prompt (after an error, an abort or a
   * budget). If the last message is the assistant's, queued steering or follow-up messages are
   * delivered first (steering by `steeringMode`, the first turn polling no more); with none
   * queued there is nothing to continue. Misuse rejects the returned promise, never throws.
   */
  async continue(): Promise<AgentRunResult> {
    this.assertIdle("continue", true);
    const last = this.current.messages.at(-1);
    if (!last) throw new Error("There is nothing to continue: the conversation is empty. Use prompt() to start it.");
    if (last.role !== "assistant") return this.run([]);
    const queued = this.take(this.steeringQueue, this.options.steeringMode);
    const prompts = queued.length > 0 ? queued : this.take(this.followUpQueue, this.options.followUpMode);
    if (prompts.length === 0)
      throw new Error(
        "There is nothing to continue: the last message is the assistant's answer. Use prompt() to add one.",
      );
    // The steering just taken is this turn's delivery; a second poll would land another one in it.
    return this.run(prompts, queued.length > 0);
  }

  /** Queues a message delivered at the next turn boundary of the current (or next) run. */
  steer(message: string | AgentMessage): void {
    this.steeringQueue.push(typeof message === "string" ? createUserMessage(message) : message);
  }

  /** Queues a message delivered when the agent would otherwise stop. */
  followUp(message: string | AgentMessage): void {
    this.followUpQueue.push(typeof message === "string" ? createUserMessage(message) : message);
  }

  /** Whether steering or follow-up messages are waiting. */
  hasQueuedMessages(): boolean {
    return this.steeringQueue.length > 0 || this.followUpQueue.length > 0;
  }

  /** Drops queued steering and follow-up messages. */
  clearQueues(): void {
    this.steeringQueue.length = 0;
    this.followUpQueue.length = 0;
  }

  /** Aborts the current run, if any: the model call and running tools are cancelled. */
  abort(): void {
    this.controller?.abort();
  }

  /** Resolves when no run is in progress (after the last listener saw `agent_end`). */
  waitForIdle(): Promise<void> {
    return this.idle;
  }

  /** Clears the conversation, queues and error. Not while running: `abort()` and `waitForIdle()` first. */
  reset(): void {
    this.assertIdle("reset");
    this.current.messages = [];
    this.current.error = undefined;
    this.current.streamingMessage = undefined;
    this.pending.clear();
    this.clearQueues();
  }

  private async run(prompts: AgentMessage[], skipFirstSteeringPoll = false): Promise<AgentRunResult> {
    const controller = new AbortController();
    this.controller = controller;
    this.current.isRunning = true;
    this.current.error = undefined;
    let settle = () => {};
    this.idle = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const { model, systemPrompt, thinkingLevel, tools, messages } = this.current;
    let skipSteering = skipFirstSteeringPoll;
    const streamOptions = { ...this.options.streamOptions, thinking: thinkingLevel };
    try {
      return await runAgentLoopWithListener(
        {
          ...this.options,
          model,
          streamOptions,
          streamFn: (streamModel, context, options) =>
            (this.options.streamFn ?? stream)(streamModel, context, {
              ...options,
              ...(this.sessionId !== undefined ? { sessionId: this.sessionId } : {}),
            }),
          context: { systemPrompt, messages, tools },
          // setTools during a run (a server's tool list changed) reaches the next turn.
          getTools: () => this.current.tools,
          prompts,
          signal: controller.signal,
          getSteeringMessages: () => {
            if (!skipSteering) return this.take(this.steeringQueue, this.options.steeringMode);
            skipSteering = false;
            return [];
          },
          getFollowUpMessages: () => this.take(this.followUpQueue, this.options.followUpMode),
        },
        (event) => this.handle(event, controller.signal),
      );
    } finally {
      this.current.isRunning = false;
      this.current.streamingMessage = undefined;
      this.pending.clear();
      this.controller = undefined;
      settle();
    }
  }

  private take(queue: AgentMessage[], mode: QueueMode = "one-at-a-time"): AgentMessage[] {
    return mode === "all" ? queue.splice(0) : queue.splice(0, 1);
  }

  private async handle(event: AgentEvent, signal: AbortSignal): Promise<void> {
    this.updateState(event);
    for (const listener of [...this.listeners]) {
      try {
        await listener(event, signal);
      } catch (error) {
        this.reportListenerError(error, event);
      }
    }
  }

  private updateState(event: AgentEvent): void {
    const state = this.current;
    switch (event.type) {
      case "message_start":
        if (event.message.role === "assistant")
          state.streamingMessage = { ...event.message, content: [...event.message.content] };
        return;
      case "message_update":
        if (state.streamingMessage) applyAssistantMessageEvent(state.streamingMessage, event.event);
        return;
      case "message_end":
        state.messages.push(event.message);
        if (event.message.role !== "assistant") return;
        state.streamingMessage = undefined;
        if (event.message.stopReason === "error" || event.message.stopReason === "aborted")
          state.error = event.message.errorMessage ?? `The model call ended with "${event.message.stopReason}".`;
        return;
      case "tool_execution_start":
        this.pending.add(event.toolCallId);
        return;
      case "tool_execution_end":
        this.pending.delete(event.toolCallId);
        return;
      case "agent_start":
      case "agent_end":
      case "turn_start":
      case "turn_end":
      case "tool_execution_update":
      case "retry":
      case "budget_reached":
        return;
      default: {
        const never: never = event;
        throw new Error(`Unknown agent event ${JSON.stringify(never)}`);
      }
    }
  }

  private reportListenerError(error: unknown, event: AgentEvent): void {
    if (this.options.onListenerError) {
      try {
        this.options.onListenerError(error, event);
      } catch {
        // The reporter itself failed; nothing sensible is left to do with it.
      }
      return;
    }
    const errors = this.current.listenerErrors;
    errors.push({ eventType: event.type, message: describeError(error) });
    if (errors.length > 20) errors.splice(0, errors.length - 20);
  }

  private assertIdle(action: string, suggestQueues = false): void {
    if (!this.current.isRunning) return;
    throw new Error(
      suggestQueues
        ? `The agent is already running, so it cannot ${action} now: use steer() to add a message to the current run or followUp() to queue one for when it finishes.`
        : `The agent is running, so it cannot ${action} now: call abort() and await waitForIdle() first.`,
    );
  }
}

/** A user message with the current time. */
export function createUserMessage(text: string, images: ImageContent[] = []): AgentMessage {
  const content: (TextContent | ImageContent)[] = [{ type: "text", text }, ...images];
  return { role: "user", content: images.length > 0 ? content : text, timestamp: Date.now() };
}

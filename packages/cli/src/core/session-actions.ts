// What AgentSession (agent-session.ts) runs now and what waits for its turn: one action at a time
// under its own AbortController, the ops that arrived while it was busy (`whileBusy`), the
// messages queued for the run, `session_idle` once per busy period, and the moment a run is only
// being written away (docs/design/session.md).
import type { Agent, AgentMessage } from "@gyre/agent";
import type { AgentSessionOptions } from "./agent-session-options.js";
import type { RunState } from "./agent-session-run.js";
import type { QueuedMessages } from "./queued-messages.js";
import { messageText } from "./session/switch-session.js";
import type { SessionEventHub } from "./session-event-hub.js";
import type { QueuedMessage } from "./session-events.js";
import { SessionOpQueue } from "./session-op-queue.js";
import {
  type Delivered,
  defaultWhileBusy,
  describeOp,
  SessionBusyError,
  type SessionOp,
  type SessionRunResult,
} from "./session-ops.js";

/** The session's parts the scheduling reads, and how it runs an op. */
export type SessionActionsOptions = {
  agent: Agent;
  events: SessionEventHub;
  /** Messages handed to the agent's queues and not yet delivered (reported with `queue_update`). */
  queued: QueuedMessages;
  /** Read live: whether the run has given its final answer. */
  run: Pick<RunState, "answered">;
  /** Runs one op as the session's action. */
  execute: (op: SessionOp, signal: AbortSignal) => Promise<unknown>;
  /** Their commands run at once, even while busy. */
  extensions: AgentSessionOptions["extensions"];
};

/** The session's one action at a time and the ops that wait for it; the session owns one. */
export class SessionActions {
  /** Ops that arrived while busy (`queue`, or `reject` while the run is being written away), in order. */
  readonly waiting = new SessionOpQueue(() => this.emitQueue());
  /** `session_idle` was emitted since the last action ended; the next one starts a new busy period. */
  private idleAnnounced = true;
  private controller: AbortController | undefined;
  private active: Promise<unknown> | undefined;

  constructor(private readonly options: SessionActionsOptions) {}

  /** Whether a prompt (with its compaction and queued deliveries) or a run is in progress. */
  get busy(): boolean {
    return this.active !== undefined || this.options.agent.state.isRunning;
  }

  /** Nothing runs and no op waits: an op may start at once. */
  get free(): boolean {
    return !this.busy && this.waiting.size === 0;
  }

  /**
   * Busy, but only writing the run away: the agent stopped, or gave its final answer with nothing
   * queued to go on with. An op that would be refused now waits the moment instead.
   */
  get windingDown(): boolean {
    if (!this.busy) return false;
    if (!this.options.agent.state.isRunning) return true;
    return this.options.run.answered && this.options.queued.empty;
  }

  /** The signal of the action in progress; undefined when none runs. */
  get signal(): AbortSignal | undefined {
    return this.controller?.signal;
  }

  /**
   * An op that may wait (every op but those that never wait), by its `whileBusy`: runs now when
   * nothing runs or waits, else joins the run, waits its turn (`onQueued` is told), or is refused
   * with a `SessionBusyError` — unless the run is only being written away, then it waits.
   */
  admit(op: SessionOp, options: { onQueued?: () => void }): Promise<unknown> {
    if (this.free) return this.start(op);
    // An extension command runs at once: its handler decides (its messages steer the run).
    const extensions = this.options.extensions;
    if (op.type === "command" && extensions?.getCommands().has(op.name))
      return extensions
        .runCommand(op.name, op.args?.trim() ?? "")
        .then((): SessionRunResult => ({ messages: [], reason: "stop" }));
    const policy = defaultWhileBusy(op);
    if (op.type === "prompt" && (policy === "steer" || policy === "follow_up") && this.options.agent.state.isRunning)
      return Promise.resolve(this.queueText(policy, op.text));
    if (policy === "reject" && !this.windingDown) return Promise.reject(new SessionBusyError(op.type, describeOp(op)));
    options.onQueued?.();
    return this.enqueue(op);
  }

  /** `waitTurn`'s rule: a front end's own step waits, or is refused, as an op with that `whileBusy` would. */
  async waitTurn(what: string, options: { onQueued?: () => void; whileBusy?: "queue" | "reject" }): Promise<void> {
    if (this.free) return;
    if (options.whileBusy !== "queue" && !this.windingDown) throw new SessionBusyError("command", what);
    options.onQueued?.();
    await this.whenIdle();
  }

  /**
   * A text given to the agent's queue. While the session is only writing a finished run away,
   * no run would read it: it becomes a prompt of its own, after what is in progress.
   */
  queueText(kind: "steer" | "follow_up", text: string): Delivered {
    if (this.busy && !this.options.agent.state.isRunning) {
      void this.enqueue({ type: "prompt", text }).catch(() => {});
      return { delivered: "follow_up" };
    }
    this.queueMessage(kind, text, "user");
    return { delivered: kind };
  }

  /** Every queued message goes through here, whoever sent it: its text is known for `before_agent_start`. */
  queueMessage(kind: "steer" | "follow_up", message: string | AgentMessage, source: QueuedMessage["source"]): void {
    const text = typeof message === "string" ? message : messageText(message);
    this.options.queued.add(kind, text, source);
    if (kind === "steer") this.options.agent.steer(message);
    else this.options.agent.followUp(message);
    this.emitQueue();
  }

  /** Removes and returns the user's queued, not yet delivered texts and waiting prompts. */
  takeQueued(): string[] {
    this.options.agent.clearQueues();
    const texts = this.options.queued.takeAll();
    const prompts = this.waiting
      .dropAll("Dropped: the run was stopped.")
      .flatMap((op) => (op.type === "prompt" ? [op.text] : []));
    this.emitQueue();
    return [...texts, ...prompts];
  }

  /** Runs `op` now as the session's action. */
  start(op: SessionOp): Promise<unknown> {
    return this.track((signal) => this.options.execute(op, signal));
  }

  /** Holds `op` until everything before it is done; `stop()` drops it. */
  enqueue(op: SessionOp): Promise<unknown> {
    return this.waiting.add(op, () => this.start(op));
  }

  /**
   * Runs `work` as the session's one action, under a fresh `AbortController`. When it ends the
   * next waiting op starts; with none, `session_idle` says the session is free.
   */
  async track<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
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

  /** Drops the waiting ops (they reject) and aborts the action in progress. */
  stop(): void {
    this.waiting.dropAll("Dropped: the run was stopped.");
    this.controller?.abort();
  }

  /** Resolves once no prompt, compaction or run is in progress and no op waits (at once when idle). */
  async whenIdle(): Promise<void> {
    while (this.busy || this.waiting.size > 0) {
      await this.active?.catch(() => {});
      await this.options.agent.waitForIdle();
      if (!this.active && this.waiting.size > 0) this.startNext();
    }
  }

  /** Tells front ends what waits: queued messages (with who queued them) and ops. */
  emitQueue(): void {
    this.options.events.emit({
      type: "queue_update",
      ...this.options.queued.lists(),
      waiting: this.waiting.labels(),
    });
  }

  /** Starts the next waiting op, or announces `session_idle` once nothing runs or waits. */
  private startNext(): void {
    if (this.active || this.options.agent.state.isRunning) return;
    if (this.waiting.startNext() || this.idleAnnounced) return;
    this.idleAnnounced = true;
    this.options.events.emit({ type: "session_idle" });
  }
}

import type { AssistantMessage } from "@gyre/ai";
import type { AgentSession, SessionEvent } from "../../core/agent-session.js";

/**
 * Where the editor's work stands: the prompt or `!cmd` it started (until the session has written
 * it away), whether the model has given its last answer, and waiting for the run to end.
 */
export class RunPhase {
  /** The prompt or `!cmd` started from the editor, until `session.prompt` settles (the file is flushed). */
  private active: Promise<void> | undefined;
  /** The run's model has given its last answer; what is left is writing it away (or compaction). */
  private answered = false;

  constructor(
    private readonly session: AgentSession,
    private readonly options: {
      /** Whether messages typed during the run wait to be delivered (the run goes on with them). */
      hasQueued: () => boolean;
      notify: (text: string) => void;
    },
  ) {}

  /** Holds `work` as the editor's action until it settles; the returned promise settles after that. */
  track(work: Promise<void>): Promise<void> {
    const run = work.finally(() => {
      if (this.active === run) this.active = undefined;
    });
    this.active = run;
    return run;
  }

  /** Whether the editor started something that has not settled yet. */
  get tracking(): boolean {
    return this.active !== undefined;
  }

  /** Whether a prompt runs (with its compaction and the delivery of what was queued as it ended). */
  isWorking(): boolean {
    return this.active !== undefined || this.session.state.isRunning;
  }

  /**
   * Whether the run is working but its answer is on screen, with nothing queued to go on with: a
   * command typed now waits the moment it takes to be written away instead of being refused.
   */
  isWindingDown(): boolean {
    if (!this.isWorking()) return false;
    // The session has ended its prompt; the editor's promise settles next.
    if (!this.session.state.isRunning) return true;
    return this.answered && !this.options.hasQueued();
  }

  /** Waits until no prompt is in progress, including the persisting after `agent_end`. */
  async settle(): Promise<void> {
    await this.active;
    await this.session.whenIdle();
  }

  /** Settles before `what` runs; a wait longer than a second (the run went on) says so. */
  async settleBefore(what: string): Promise<void> {
    if (!this.isWorking()) return this.settle();
    const slow = setTimeout(
      () => this.options.notify(`${what} runs once the agent finishes (Esc stops the agent).`),
      1000,
    );
    try {
      await this.settle();
    } finally {
      clearTimeout(slow);
    }
  }

  onEvent(event: SessionEvent): void {
    if (event.type === "agent_start") this.answered = false;
    else if (event.type === "message_end" && event.message.role === "assistant")
      this.answered = isFinalAnswer(event.message);
  }
}

/** An assistant message after which the loop calls no more tools (it may still go on with queued messages). */
function isFinalAnswer(message: AssistantMessage): boolean {
  if (message.stopReason !== "stop" && message.stopReason !== "toolUse") return true;
  return !message.content.some((block) => block.type === "toolCall");
}

import type { QueuedMessage } from "./session-events.js";

type Queued = QueuedMessage & { order: number };

/**
 * The texts of the messages waiting in the agent's queues, whoever queued them (the user, an
 * extension, the governor), in delivery order: steering first, then follow-ups. The session
 * keeps it next to the agent's own queues, so `before_agent_start` is told the text that is
 * delivered next and front ends see what waits.
 */
export class QueuedMessages {
  private steer: Queued[] = [];
  private followUp: Queued[] = [];
  private count = 0;

  add(kind: "steer" | "follow_up", text: string, source: QueuedMessage["source"]): void {
    (kind === "steer" ? this.steer : this.followUp).push({ text, source, order: this.count++ });
  }

  get empty(): boolean {
    return this.steer.length === 0 && this.followUp.length === 0;
  }

  /** The one the agent delivers next. */
  next(): QueuedMessage | undefined {
    return this.steer[0] ?? this.followUp[0];
  }

  /** A message with this text reached the conversation; false when none waited with it. */
  delivered(text: string): boolean {
    for (const list of [this.steer, this.followUp]) {
      const index = list.findIndex((item) => item.text === text);
      if (index < 0) continue;
      list.splice(index, 1);
      return true;
    }
    return false;
  }

  /** Empties both queues; the user's texts come back in the order they were sent. */
  takeAll(): string[] {
    const texts = [...this.steer, ...this.followUp]
      .filter((item) => item.source === "user")
      .sort((a, b) => a.order - b.order)
      .map((item) => item.text);
    this.steer = [];
    this.followUp = [];
    return texts;
  }

  /** What `queue_update` lists. */
  lists(): { steering: QueuedMessage[]; followUp: QueuedMessage[] } {
    const plain = ({ text, source }: Queued): QueuedMessage => ({ text, source });
    return { steering: this.steer.map(plain), followUp: this.followUp.map(plain) };
  }
}

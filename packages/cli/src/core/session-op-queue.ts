import { describeOp, type SessionOp, type SessionOpType } from "./session-ops.js";

type WaitingOp = { op: SessionOp; start: () => void; drop: (error: Error) => void };

/**
 * The ops that arrived while the session was busy, in order (docs/design/session.md): each
 * waits until the session starts it, or is dropped (`abort`). `onChange` hears every change, so
 * the session can tell front ends what waits.
 */
export class SessionOpQueue {
  private readonly waiting: WaitingOp[] = [];

  constructor(private readonly onChange: () => void) {}

  get size(): number {
    return this.waiting.length;
  }

  /** Holds `op`; resolves or rejects as `run` does once the session starts it. */
  add(op: SessionOp, run: () => Promise<unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ op, start: () => void run().then(resolve, reject), drop: reject });
      this.onChange();
    });
  }

  /** Starts the oldest waiting op; false when none waits. */
  startNext(): boolean {
    const next = this.waiting.shift();
    if (!next) return false;
    this.onChange();
    next.start();
    return true;
  }

  /** Drops every waiting op (each rejects with `reason`); returns them. */
  dropAll(reason: string): SessionOp[] {
    const dropped = this.waiting.splice(0);
    for (const { drop } of dropped) drop(new Error(reason));
    if (dropped.length > 0) this.onChange();
    return dropped.map(({ op }) => op);
  }

  /** What waits, as `queue_update` lists it: a prompt by its text, other ops by name. */
  labels(): { type: SessionOpType; label: string }[] {
    return this.waiting.map(({ op }) => ({ type: op.type, label: op.type === "prompt" ? op.text : describeOp(op) }));
  }
}

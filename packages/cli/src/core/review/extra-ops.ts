/**
 * `review` and `remember` for a runtime's session (docs/review.md, docs/memory.md): the session
 * hands them here with what start-up made (tools, plan mode, the budget, context files).
 */
import type { ExtraOps } from "../agent-session-options.js";
import { type ContextRefresh, refreshContextFiles } from "../memory/refresh-context.js";
import { remember } from "../memory/remember.js";
import type { SessionEvent } from "../session-events.js";
import { type ReviewDeps, runReview } from "./run-review.js";

export type RuntimeExtraOps = {
  ops: ExtraOps;
  /** An event source for the session: each review's agent events go out as `subagent_event`s of `review-N`. */
  attach: (emit: (event: SessionEvent) => void) => void;
};

export function createExtraOps(review: Omit<ReviewDeps, "onEvent">, memory: ContextRefresh): RuntimeExtraOps {
  const place = { cwd: memory.cwd, gyreHome: memory.gyreHome };
  let emit: ((event: SessionEvent) => void) | undefined;
  let reviews = 0;
  return {
    attach: (next) => {
      emit = next;
    },
    ops: {
      review: (op, signal) => {
        const parentToolCallId = `review-${++reviews}`;
        return runReview(
          {
            ...review,
            onEvent: (event) => emit?.({ type: "subagent_event", parentToolCallId, agent: "review", event }),
          },
          {
            ...(op.base !== undefined ? { base: op.base } : {}),
            ...(op.uncommitted ? { uncommitted: true } : {}),
            ...(op.focus ? { focus: op.focus } : {}),
          },
          signal,
        );
      },
      remember: (op) => remember(place, op, () => refreshContextFiles(memory)),
    },
  };
}

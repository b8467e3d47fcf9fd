import type { AgentSession } from "../core/agent-session.js";
import type { SessionEndReason } from "../core/governor/governor.js";

/** A sentence describing why a run failed, or undefined when it succeeded. */
export function describeRunFailure(session: AgentSession, reason: SessionEndReason): string | undefined {
  switch (reason) {
    case "stop":
    case "terminate":
    case "stop_after_turn":
      return undefined;
    case "budget":
      return session.state.budgetReason ?? "A budget ended the run.";
    case "loop":
      return session.state.loopReason ?? "The run was stopped in a loop.";
    case "aborted":
      return "The run was aborted.";
    case "error": {
      const error = session.state.lastError ?? "The model call failed.";
      return `The model call failed: ${error}`;
    }
    default: {
      const never: never = reason;
      return `The run ended unexpectedly (${String(never)}).`;
    }
  }
}

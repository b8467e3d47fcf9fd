/**
 * The governor of a session (docs/design/delegation.md): one budget for the whole tree of agents (the main agent
 * and every subagent charge the same `TreeBudget`) and the loop detector. The session feeds it
 * the main agent's events; it answers with what to do: tell the model about a loop (a steering
 * message), end the run after this turn (`shouldStopAfterTurn`), and why the run ended.
 */
import type { AgentBudgets, AgentEndReason, AgentEvent } from "@gyre/agent";
import {
  createTreeBudget,
  describeBudgetRaise,
  type TreeBudget,
  type TreeBudgetReached,
} from "../subagents/tree-budget.js";
import type { BudgetQuestion } from "./budget-question.js";
import { createLoopDetector, type LoopDetectorOptions, type LoopPattern } from "./loop-detector.js";

/** Why a session's run ended: the agent's reasons plus the governor's `loop`. */
export type SessionEndReason = AgentEndReason | "loop";

/** Harness events the governor adds to the session's stream. */
export type GovernorEvent =
  | { type: "loop_warning"; pattern: LoopPattern; message: string }
  | { type: "loop_detected"; pattern: LoopPattern; message: string };

/** What the session does after feeding an event. */
export type GovernorAction = { steer?: string; event?: GovernorEvent };

export type Governor = {
  readonly budget: TreeBudget;
  /** A new user request: budgets and loop history start over. */
  startRequest(): void;
  /** Feeds one event of the main agent. */
  observe(event: AgentEvent): GovernorAction | undefined;
  /** For the agent's `shouldStopAfterTurn`: true once the tree's budget is spent or a loop went on after its warning. */
  shouldStop(): boolean;
  /** The tree budget that ended a run with `reason`, or undefined when no budget did (a loop, an answer). */
  budgetReached(reason: AgentEndReason): TreeBudgetReached | undefined;
  /** Replaces limits (a user who raised the budget at a pause); the run may go on. */
  raise(limits: Partial<AgentBudgets>): void;
  /**
   * Pauses the whole tree at its reached budget and asks `question`, once: an agent that reaches
   * the budget while the question is open shares its answer, and after a "stop" nobody is asked
   * again in this request. On a raise, `onRaised` runs once (for the caller that asked) and the
   * tree's limits are already raised; resolves true then. False when nothing is reached.
   */
  pauseAtBudget(
    question: BudgetQuestion,
    signal: AbortSignal,
    onRaised: (raised: Partial<AgentBudgets>, reached: TreeBudgetReached) => void,
  ): Promise<boolean>;
  /** Maps the agent's end reason to the session's, with the sentence to show for budget and loop. */
  endOf(reason: AgentEndReason): { reason: SessionEndReason; message?: string };
};

export type GovernorOptions = { budgets?: AgentBudgets; loop?: LoopDetectorOptions | false };

/** Creates a governor; `loop: false` turns the loop detector off. */
export function createGovernor(options: GovernorOptions = {}): Governor {
  const budget = createTreeBudget(options.budgets);
  const detector = options.loop === false ? undefined : createLoopDetector(options.loop);
  let loop: { pattern: LoopPattern; message: string } | undefined;
  let reached: TreeBudgetReached | undefined;
  let stopMainClock: (() => void) | undefined;
  let question: Promise<boolean> | undefined;
  let declined = false;
  const raise = (limits: Partial<AgentBudgets>) => {
    budget.raise(limits);
    reached = undefined;
  };
  return {
    budget,
    startRequest() {
      budget.reset();
      detector?.reset();
      loop = undefined;
      reached = undefined;
      declined = false;
    },
    observe(event) {
      // Stopped at a run's end: /cost read later shows the request's time, not the time since.
      if (event.type === "agent_start") stopMainClock = budget.begin("main");
      if (event.type === "agent_end") stopMainClock?.();
      if (event.type === "message_end" && event.message.role === "assistant") budget.charge("main", event.message);
      if (event.type !== "turn_end" || detector === undefined) return undefined;
      const verdict = detector.observeTurn(event.message, event.toolResults);
      if (verdict.action === "continue") return undefined;
      if (verdict.action === "warn") {
        return {
          steer: `[gyre loop check] ${verdict.message}`,
          event: { type: "loop_warning", pattern: verdict.pattern, message: verdict.message },
        };
      }
      loop = { pattern: verdict.pattern, message: verdict.message };
      return { event: { type: "loop_detected", pattern: verdict.pattern, message: verdict.message } };
    },
    shouldStop() {
      reached ??= budget.check();
      return loop !== undefined || reached !== undefined;
    },
    budgetReached(reason) {
      if (loop !== undefined || (reason !== "budget" && reason !== "stop_after_turn")) return undefined;
      return reached ?? budget.check();
    },
    raise,
    pauseAtBudget(ask, signal, onRaised) {
      if (question !== undefined) return question;
      const current = loop === undefined ? budget.check() : undefined;
      if (current === undefined || declined || signal.aborted) return Promise.resolve(false);
      question = (async () => {
        try {
          const raised = await ask(current, signal);
          if (raised === undefined || signal.aborted) {
            declined = !signal.aborted;
            return false;
          }
          raise(raised);
          onRaised(raised, current);
          return true;
        } finally {
          question = undefined;
        }
      })();
      return question;
    },
    endOf(reason) {
      if (reason !== "stop_after_turn") return { reason };
      if (loop !== undefined) return { reason: "loop", message: `The run was stopped in a loop: ${loop.message}` };
      if (reached !== undefined)
        return { reason: "budget", message: `${reached.reason} ${describeBudgetRaise(reached.budget)}` };
      return { reason };
    },
  };
}

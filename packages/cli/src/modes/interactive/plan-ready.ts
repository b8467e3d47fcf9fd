/**
 * The step after a plan (docs/safety.md#plan-mode): when a run in plan mode ends with an answer,
 * the TUI asks whether to start editing. Yes leaves plan mode and sends the go-ahead as the user's
 * next message; no (or Esc) stays in plan mode, so the user can refine the plan first.
 */
import type { AgentSession } from "../../core/agent-session.js";
import type { SessionEndReason } from "../../core/governor/governor.js";

export const PLAN_READY_TITLE = "Plan ready — start editing?";
/** What the model is told on yes: the plan is its own last answer, still in the conversation. */
export const GO_AHEAD_PROMPT =
  "Plan mode is over and the plan is approved: carry it out now, with the tools to edit files.";

const yes = "yes";

export type PlanReadyStep = {
  session: AgentSession;
  /** Shows a choice in the editor's place; undefined when the user pressed Esc. */
  select(title: string, items: { value: string; label: string }[]): Promise<string | undefined>;
  notify(text: string): void;
  /** Sends `text` as the user's prompt (the controller's own path, so the run is drawn and reported). */
  prompt(text: string): Promise<void>;
};

/**
 * Whether a run left a plan to act on: it started and ended in plan mode (a Shift+Tab pressed
 * during a run switches only at its end, after an answer that is no plan), ended normally, with text.
 */
export function hasPlanReady(
  session: AgentSession,
  run: { startedInPlanMode: boolean; reason: SessionEndReason | undefined },
): boolean {
  if (!run.startedInPlanMode || run.reason !== "stop" || session.state.permissionMode !== "plan") return false;
  return (session.getLastAssistantText() ?? "").trim() !== "";
}

/** Asks once; on yes switches to the default mode and sends the go-ahead, otherwise stays in plan mode. */
export async function offerToStartEditing(step: PlanReadyStep): Promise<void> {
  const answer = await step.select(PLAN_READY_TITLE, [
    { value: yes, label: "Yes, leave plan mode and carry out the plan" },
    { value: "no", label: "No, stay in plan mode" },
  ]);
  if (answer !== yes) {
    step.notify("Still in plan mode: refine the plan, or press Shift+Tab to leave it.");
    return;
  }
  try {
    // A prompt typed meanwhile may be running: the switch then waits for its end, as Shift+Tab's does.
    await step.session.submit({ type: "set_mode", mode: "default", whileBusy: "queue" });
  } catch (error) {
    step.notify(`Plan mode could not be left: ${(error as Error).message}`);
    return;
  }
  step.notify("Plan mode left: the tools are back; the plan goes ahead.");
  await step.prompt(GO_AHEAD_PROMPT);
}

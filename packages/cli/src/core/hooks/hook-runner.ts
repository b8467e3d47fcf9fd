import {
  GATE_EVENTS,
  type HookCommand,
  type HookEvent,
  type HookInput,
  type HookJsonOutput,
  type HookOutcome,
  type HookRun,
} from "./hook-types.js";
import { type RunHookOptions, runHookCommand } from "./run-hook-command.js";

const DECISION_RANK = { allow: 1, ask: 2, deny: 3 } as const;

/**
 * Runs the configured hooks of an event: every command whose matcher matches `target`, in
 * parallel, each distinct command string once, and folds their results into one outcome
 * (docs/hooks.md). Never throws.
 */
export class HookRunner {
  constructor(
    private commands: readonly HookCommand[],
    private readonly options: Omit<RunHookOptions, "signal">,
  ) {}

  /** Replaces the configured commands (`/reload`); hooks already running finish as they were. */
  setCommands(commands: readonly HookCommand[]): void {
    this.commands = [...commands];
  }

  /** The configured commands, in order. */
  list(): readonly HookCommand[] {
    return this.commands;
  }

  /** Whether any hook is configured for `event` (callers skip building its input otherwise). */
  has(event: HookEvent): boolean {
    return this.commands.some((command) => command.event === event);
  }

  /**
   * The distinct commands of `event` whose matcher matches `target`, or one of several names
   * (a MultiEdit is also an Edit); events without a target match all.
   */
  matching(event: HookEvent, target: string | readonly string[] | undefined): HookCommand[] {
    const byCommand = new Map<string, HookCommand>();
    const targets = typeof target === "string" ? [target] : target;
    for (const command of this.commands) {
      if (command.event !== event || byCommand.has(command.command)) continue;
      const matcher = command.matcher;
      if (matcher && targets !== undefined && !targets.some((each) => matcher.test(each))) continue;
      byCommand.set(command.command, command);
    }
    return [...byCommand.values()];
  }

  async run(
    input: HookInput,
    options: { target?: string | readonly string[]; signal?: AbortSignal } = {},
  ): Promise<HookOutcome> {
    const commands = this.matching(input.hook_event_name, options.target);
    if (commands.length === 0) return { context: [], messages: [], ran: 0 };
    const runs = await Promise.all(
      commands.map((command) =>
        runHookCommand(command, input, { ...this.options, ...(options.signal ? { signal: options.signal } : {}) }),
      ),
    );
    return foldRuns(input.hook_event_name, runs);
  }
}

/** One outcome from every command's result: the strictest decision wins, texts add up in order. */
export function foldRuns(event: HookEvent, runs: readonly HookRun[]): HookOutcome {
  const outcome: HookOutcome = { context: [], messages: [], ran: runs.length };
  const blocks: string[] = [];
  const gate = GATE_EVENTS.has(event);
  for (const run of runs) {
    const name = `the ${event} hook ${JSON.stringify(run.command.command)}`;
    if (run.failure || (run.exitCode !== 0 && run.exitCode !== 2)) {
      const why = run.failure ?? `exited with code ${run.exitCode}`;
      const detail = run.stderr.trim() ? `: ${run.stderr.trim()}` : "";
      // A guard that breaks must not let the call through (docs/hooks.md: gates fail closed).
      if (gate) blocks.push(`${name} ${why}${detail}, so the call is blocked`);
      else outcome.messages.push(`${name} ${why}${detail}`);
      continue;
    }
    if (run.exitCode === 2) {
      blocks.push(run.stderr.trim() || `${name} blocked this (exit 2) without saying why`);
      continue;
    }
    const text = run.stdout.trim();
    if (!text.startsWith("{")) {
      if (text && (event === "UserPromptSubmit" || event === "SessionStart")) outcome.context.push(text);
      continue;
    }
    let json: HookJsonOutput;
    try {
      json = JSON.parse(text) as HookJsonOutput;
    } catch {
      const problem = `${name} printed output that is not valid JSON`;
      if (gate) blocks.push(`${problem}, so the call is blocked`);
      else outcome.messages.push(problem);
      continue;
    }
    applyJson(outcome, blocks, json);
  }
  if (blocks.length > 0) outcome.blocked = blocks.join("\n");
  return outcome;
}

function applyJson(outcome: HookOutcome, blocks: string[], json: HookJsonOutput): void {
  if (typeof json.systemMessage === "string") outcome.messages.push(json.systemMessage);
  if (json.continue === false)
    outcome.stop = typeof json.stopReason === "string" ? json.stopReason : "a hook stopped the run";
  if (json.decision === "block") blocks.push(typeof json.reason === "string" ? json.reason : "a hook blocked this");
  // The older PreToolUse form: "approve" skips the prompt as "allow" does.
  if (json.decision === "approve") raiseDecision(outcome, "allow", json.reason);
  const specific = json.hookSpecificOutput;
  if (!specific || typeof specific !== "object") return;
  const decision = specific.permissionDecision;
  if (decision === "allow" || decision === "deny" || decision === "ask")
    raiseDecision(outcome, decision, specific.permissionDecisionReason);
  // PermissionRequest answers with decision.behavior.
  const behavior = specific.decision?.behavior;
  if (behavior === "allow" || behavior === "deny") raiseDecision(outcome, behavior, specific.decision?.message);
  const updated = specific.updatedInput ?? specific.decision?.updatedInput;
  if (updated && typeof updated === "object" && !Array.isArray(updated))
    outcome.updatedInput = { ...outcome.updatedInput, ...updated };
  if (typeof specific.additionalContext === "string" && specific.additionalContext.trim())
    outcome.context.push(specific.additionalContext);
}

function raiseDecision(outcome: HookOutcome, decision: "allow" | "deny" | "ask", reason: unknown): void {
  if (outcome.permissionDecision && DECISION_RANK[outcome.permissionDecision] >= DECISION_RANK[decision]) return;
  outcome.permissionDecision = decision;
  if (typeof reason === "string" && reason.trim()) outcome.permissionReason = reason;
  else delete outcome.permissionReason;
}

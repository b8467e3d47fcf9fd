/**
 * The gate every tool call passes before it runs (the agent's `beforeToolCall`): permission rules,
 * plan mode, bash escalation and protected files. It fails closed: a call that needs approval
 * nobody can give is blocked with a reason the model can act on, and a throw here blocks the call.
 */
import type { BeforeToolCallInput, BeforeToolCallResult } from "@gyre/agent";
import type { ApprovalAnswer, ApprovalRequest } from "../user-interface.js";
import { suggestApprovalRules } from "./approval-rules.js";
import type { RuleSet } from "./permission-rules.js";
import { PLAN_WITHHELD_TOOLS } from "./plan-mode.js";
import { describeProtectedFile, type ProtectedFileOptions } from "./protected-files.js";

export type ApprovalMode = "ask" | "deny" | "allow";

export type ApprovalGateOptions = {
  rules: RuleSet;
  /** The user's "Yes, always" answers (`permissions.approved`): they beat ask rules, never deny rules. */
  approved?: RuleSet;
  /** Esc at the approval question: the run stops (the call is blocked as it goes). */
  stopRun?: () => void;
  approval: ApprovalMode;
  /** Asks a person; undefined when nobody can answer (print/json), which denies. */
  ask: ((request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer>) | undefined;
  protectedFiles: ProtectedFileOptions;
  /** Saves the rules of a "yes, always" (the answer's own, else the suggested ones) where they apply. */
  saveAllowRule: (rules: string[]) => Promise<void>;
  /** The user's hooks (docs/hooks.md): a PreToolUse verdict per call, and PermissionRequest before asking. */
  hooks?: GateHooks;
};

/** What the gate asks the hooks; deny rules and plan mode are checked before either. */
export type GateHooks = {
  /** "allow" skips the approval prompt, "ask" forces it; read once per call. */
  verdict(toolCallId: string): "allow" | "ask" | undefined;
  /** Answers for the user when a hook decides; undefined leaves the question to the normal path. */
  permissionRequest(
    request: ApprovalRequest,
    signal: AbortSignal,
    willAsk: boolean,
  ): Promise<ApprovalAnswer | undefined>;
};

export type ApprovalGate = {
  beforeToolCall(input: BeforeToolCallInput, signal: AbortSignal): Promise<BeforeToolCallResult | undefined>;
  isPlanMode(): boolean;
  setPlanMode(on: boolean): void;
  /** New rules at once (`/reload`, a saved "always"): the next call is checked against them. */
  setRules(rules: RuleSet, approved?: RuleSet): void;
  /**
   * A call gyre makes for the user rather than the model (a Claude command's `!`cmd``,
   * docs/claude-compat.md): checked as `beforeToolCall` checks a call, except that without an
   * allow rule or an approval covering it the user is asked (`reason`) instead of letting it run.
   */
  checkOwnCall(call: OwnCall, signal: AbortSignal): Promise<BeforeToolCallResult | undefined>;
};

/** A call gyre makes itself: an id for hooks and the question, the tool, its arguments, why it needs approval. */
export type OwnCall = { id: string; toolName: string; args: Record<string, unknown>; reason: string };

const WRITING_TOOLS = PLAN_WITHHELD_TOOLS;

/** Creates the gate; `planMode` is the starting state (`--plan`). */
export function createApprovalGate(options: ApprovalGateOptions, planMode = false): ApprovalGate {
  let plan = planMode;
  let rules = options.rules;
  let approved = options.approved;
  const block = (reason: string): BeforeToolCallResult => ({ block: true, reason });

  const needsOf = async (toolName: string, args: Record<string, unknown>): Promise<string[]> => {
    const needs: string[] = [];
    if (toolName === "bash" && args.escalate === true) {
      const why =
        typeof args.justification === "string" && args.justification.trim()
          ? args.justification.trim()
          : "no justification given";
      needs.push(`the command asks to run outside the sandbox (${why})`);
    }
    if (WRITING_TOOLS.has(toolName) && typeof args.path === "string") {
      const protectedReason = await describeProtectedFile(args.path, options.protectedFiles);
      if (protectedReason) needs.push(protectedReason);
    }
    return needs;
  };

  return {
    isPlanMode: () => plan,
    setPlanMode: (on) => {
      plan = on;
    },
    setRules: (next, nextApproved) => {
      rules = next;
      approved = nextApproved;
    },
    beforeToolCall: (input, signal) =>
      decide({ id: input.toolCall.id, toolName: input.toolCall.name, args: input.args }, signal),
    checkOwnCall: (call, signal) => decide(call, signal, call.reason),
  };

  /** The gate's decision on one call; `standing` is a need of its own unless an allow rule or approval covers the call. */
  async function decide(
    call: { id: string; toolName: string; args: Record<string, unknown> },
    signal: AbortSignal,
    standing?: string,
  ): Promise<BeforeToolCallResult | undefined> {
    const { toolName, args } = call;
    if (plan && (WRITING_TOOLS.has(toolName) || (toolName === "bash" && args.escalate === true))) {
      return block(
        `Plan mode: ${toolName === "bash" ? "escalation" : toolName} is withheld and bash is read-only. Finish the plan and present it; the user leaves plan mode to apply it.`,
      );
    }
    let verdict = await rules.evaluate(toolName, args);
    if (verdict.decision === "deny")
      return block(
        `Denied by the permission rules: ${verdict.reason}. Do not retry it; find another way or ask the user.`,
      );
    // The user's own "always" answered this question before: no ask rule asks it again.
    if (verdict.decision !== "allow" && approved && (await approved.evaluate(toolName, args)).decision === "allow")
      verdict = { decision: "allow", reason: "the user approved it before" };
    const hook = options.hooks?.verdict(call.id);
    if (hook === "allow") return undefined;
    const needs = await needsOf(toolName, args);
    if (verdict.decision === "ask") needs.unshift(verdict.reason);
    if (standing && verdict.decision !== "allow") needs.unshift(standing);
    if (hook === "ask") needs.unshift("a PreToolUse hook asks for the user's approval");
    // An allow rule is the user's standing approval, so it also covers escalations and protected files.
    if (needs.length === 0 || (verdict.decision === "allow" && hook !== "ask")) return undefined;
    const reason = needs.join("; ");
    if (options.approval === "allow") return undefined;
    const request = { toolCallId: call.id, toolName, args, reason };
    const hooked = await options.hooks?.permissionRequest(request, signal, options.approval === "ask" && !!options.ask);
    if (hooked?.decision === "allow") return undefined;
    if (hooked?.decision === "deny")
      return block(
        `A PermissionRequest hook denied this call: ${hooked.reason ?? "no reason given"}. Do not retry it unchanged.`,
      );
    if (options.approval === "deny" || !options.ask) {
      return block(
        `This call needs the user's approval (${reason}), and this run does not ask (--approval deny or no one to answer). ` +
          "Work inside the sandbox and the project, or tell the user what you need and why.",
      );
    }
    const answer = await options.ask(request, signal);
    if (answer.decision === "allow") return undefined;
    if (answer.decision === "allow_always") {
      await options.saveAllowRule(answer.rules ?? (await suggestApprovalRules(toolName, args)));
      return undefined;
    }
    if (answer.stop) {
      options.stopRun?.();
      return block("The user stopped the run at this approval question.");
    }
    const said = answer.reason?.trim() ? ` They said: ${answer.reason.trim()}` : "";
    return block(`The user declined this call (${reason}).${said} Do not retry it unchanged.`);
  }
}

/**
 * The `review` op (docs/review.md): a read-only subagent is given the diff and asked for findings
 * as JSON. It gets read, grep, find and ls, and bash only under plan mode's rules: the session is
 * put in plan mode for the review (read-only sandbox, write and edit refused by the gate) and
 * back afterwards. It sees nothing of the conversation, and adds nothing to it.
 */
import type { AgentEndReason, AgentEvent, AgentLoopConfig, AnyAgentTool } from "@gyre/agent";
import type { Model, ThinkingLevel } from "@gyre/ai";
import type { Safety } from "../permissions/create-safety.js";
import { isWithheldInPlanMode } from "../permissions/plan-mode.js";
import { runSubagent } from "../subagents/run-subagent.js";
import type { TreeBudget } from "../subagents/tree-budget.js";
import { collectReviewDiff, type ReviewScope } from "./review-diff.js";
import { FINDINGS_SHAPE, parseFindings, type ReviewFindings } from "./review-findings.js";

/** The tools a reviewer may be offered (of the session's). */
const REVIEW_TOOLS: ReadonlySet<string> = new Set(["read", "grep", "find", "ls", "bash"]);

export type ReviewRequest = ReviewScope & {
  /** What to look at especially ("the error handling"). */
  focus?: string;
};

export type ReviewResult = ReviewFindings & {
  /** What was reviewed, e.g. "uncommitted changes against HEAD (a1b2c3d)". */
  target: string;
  files: string[];
  /** Why the reviewer stopped; "stop" when it answered (or there was nothing to review). */
  reason: AgentEndReason;
  errorMessage?: string;
};

export type ReviewDeps = {
  cwd: string;
  model: () => Model;
  thinkingLevel?: () => ThinkingLevel;
  /** The session's tools now; the reviewer gets the read-only ones. */
  tools: () => readonly AnyAgentTool[];
  /** Plan mode for the review's bash; without it the reviewer has no bash. */
  safety?: Safety;
  /** The session's tree budget (the governor's): the review is charged to it. */
  budget: TreeBudget;
  /** A new request for the governor, as a prompt starts one. */
  startRequest?: () => void;
  /** The session's model access and tool-call hooks (PreToolUse, PostToolUse, PostToolUseFailure: docs/hooks.md). */
  loop: Pick<AgentLoopConfig, "streamFn" | "getApiKey" | "streamOptions" | "beforeToolCall" | "afterToolCall">;
  onEvent?: (event: AgentEvent) => void;
};

export const REVIEWER_SYSTEM_PROMPT = `You are a code reviewer. You are given a diff of a git repository and read-only tools (read, grep, find, ls, and bash in a read-only sandbox) to look at the code around it. Find real problems the change introduces: bugs, wrong logic, crashes, security holes, data loss, races, missing error handling, broken tests. Do not report style or taste. Each finding names the file (path from the repository root) and the line in the new version, a severity (high: wrong or unsafe behaviour; medium: likely bug or fragile; low: minor), and a concrete fix. Do not change any file.

When done, answer with one JSON object and nothing else, of this shape:
${FINDINGS_SHAPE}
An empty "findings" list means you found nothing wrong.`;

/** Reviews what `request` names; throws one sentence when the diff cannot be read. */
export async function runReview(deps: ReviewDeps, request: ReviewRequest, signal: AbortSignal): Promise<ReviewResult> {
  const diff = await collectReviewDiff(deps.cwd, request);
  const base = { target: diff.description, files: diff.files };
  if (diff.patch.trim() === "")
    return { ...base, findings: [], text: `Nothing to review: no ${diff.description}.`, reason: "stop" };
  deps.startRequest?.();
  const safety = deps.safety;
  const enterPlan = safety !== undefined && safety.permissionMode() !== "plan";
  if (enterPlan) await safety.setPlanMode(true);
  try {
    const tools = deps
      .tools()
      .filter((tool) => REVIEW_TOOLS.has(tool.name) && !isWithheldInPlanMode(tool))
      .filter((tool) => tool.name !== "bash" || safety !== undefined);
    const outcome = await runSubagent({
      label: "review",
      prompt: reviewPrompt(diff.description, diff.patch, request.focus),
      systemPrompt: REVIEWER_SYSTEM_PROMPT,
      model: deps.model(),
      ...(deps.thinkingLevel ? { thinkingLevel: deps.thinkingLevel() } : {}),
      tools,
      budget: deps.budget,
      signal,
      loop: deps.loop,
      ...(deps.onEvent ? { onEvent: deps.onEvent } : {}),
    });
    return {
      ...base,
      ...parseFindings(outcome.text),
      reason: outcome.reason,
      ...(outcome.errorMessage ? { errorMessage: outcome.errorMessage } : {}),
    };
  } finally {
    if (enterPlan) await safety.setPlanMode(false);
  }
}

function reviewPrompt(description: string, patch: string, focus: string | undefined): string {
  const lines = [`Review ${description}.`];
  if (focus?.trim()) lines.push(`Look especially at: ${focus.trim()}`);
  lines.push("", "```diff", patch.replace(/\n$/, ""), "```");
  return lines.join("\n");
}

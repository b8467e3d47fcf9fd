/**
 * The slash commands an editor's prompt can start with that are session ops, not prompts
 * (docs/acp.md): `/compact [focus]`, `/review [--base <ref> | --uncommitted] [focus]` and
 * `/remember [--user] <text>`. Each answers with a message of its own; nothing else is a command
 * here (templates, skills and extension commands go through the prompt op).
 */
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import type { AgentSession } from "../../core/agent-session.js";
import { parseReviewArgs } from "../../core/review/review-args.js";
import { renderFindings } from "../../core/review/review-findings.js";

export const OP_COMMANDS: AvailableCommand[] = [
  { name: "compact", description: "Summarise the older part of the conversation now", input: { hint: "focus" } },
  {
    name: "review",
    description: "A read-only subagent reviews the uncommitted changes (or --base <ref>: the branch)",
    input: { hint: "[--base <ref> | --uncommitted] [focus]" },
  },
  {
    name: "remember",
    description: "Add a line to the project's AGENTS.md (--user: yours), in context from the next prompt",
    input: { hint: "[--user] what to remember" },
  },
];

/** Runs `text` when it is one of these commands and resolves with the message to show; undefined when it is not one. */
export async function runOpCommand(session: AgentSession, text: string): Promise<string | undefined> {
  const match = /^\/(compact|review|remember)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const [, name, rest = ""] = match;
  if (name === "compact") {
    const { compacted } = await session.submit({ type: "compact", ...(rest.trim() ? { focus: rest.trim() } : {}) });
    return compacted ? "" : "Nothing to compact yet.";
  }
  if (name === "review") {
    const parsed = parseReviewArgs(rest);
    if ("error" in parsed) return parsed.error;
    const result = await session.submit({ type: "review", ...parsed });
    const unfinished =
      result.reason === "stop" || result.reason === "budget"
        ? ""
        : `\n\nThe review did not finish: ${result.errorMessage ?? result.reason}.`;
    return `Review of ${result.target}\n\n${renderFindings(result)}${unfinished}`;
  }
  const user = /^--user(?:\s+|$)/.exec(rest);
  const line = user ? rest.slice(user[0].length) : rest;
  if (!line.trim()) return "Type what to remember after /remember, e.g. /remember use pnpm, never npm.";
  const remembered = await session.submit({ type: "remember", text: line, scope: user ? "user" : "project" });
  return remembered.inContext
    ? `Remembered in ${remembered.path}.`
    : `Remembered in ${remembered.path}, but this folder is not trusted, so the model does not see it; trust the folder to use it.`;
}

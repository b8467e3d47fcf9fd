/**
 * Where a compaction cuts: the first entry kept as it is. Cuts fall on a user message (a turn
 * boundary) when possible, else on an assistant message, so a tool result is never separated
 * from the call that asked for it.
 */
import type { SessionEntry } from "../session/types.js";
import { estimateEntryTokens } from "./estimate-tokens.js";

function isRole(entry: SessionEntry | undefined, role: "user" | "assistant"): boolean {
  return entry?.type === "message" && entry.message.role === role;
}

/**
 * Index in `branch` of the first entry to keep, or undefined when nothing worth summarising
 * precedes any cut (the summarised part must hold at least one model answer). Keeps at least
 * `keepRecentTokens` of the newest entries when a cut allows it; otherwise keeps less rather than
 * nothing, so a compaction always makes room. `from` is where the summarisable part starts.
 */
export function findCutPoint(
  branch: SessionEntry[],
  options: { from: number; keepRecentTokens: number },
): number | undefined {
  let from = options.from;
  while (from < branch.length && !isRole(branch[from], "assistant")) from++;
  let budgetIndex = from;
  let kept = 0;
  for (let index = branch.length - 1; index > from; index--) {
    kept += estimateEntryTokens(branch[index] as SessionEntry);
    if (kept >= options.keepRecentTokens) {
      budgetIndex = index;
      break;
    }
  }
  const within = (role: "user" | "assistant") => {
    for (let index = budgetIndex; index > from; index--) if (isRole(branch[index], role)) return index;
    return undefined;
  };
  const beyond = (role: "user" | "assistant") => {
    for (let index = Math.max(budgetIndex, from + 1); index < branch.length; index++)
      if (isRole(branch[index], role)) return index;
    return undefined;
  };
  return within("user") ?? within("assistant") ?? beyond("user") ?? beyond("assistant");
}

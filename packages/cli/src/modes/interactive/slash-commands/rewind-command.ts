import type { RewindPlan, RewindRestore } from "../../../core/checkpoints/rewind.js";
import { summariseChanges } from "../../../core/checkpoints/tree-diff.js";
import type { CommandContext, SlashCommand } from "./types.js";

const restoreItems = [
  { value: "both", label: "Files and conversation", description: "as they were before that message" },
  { value: "code", label: "Files only", description: "keep the conversation" },
  { value: "conversation", label: "Conversation only", description: "keep the files" },
];

/** The plan as lines: what changes, what is kept as a conflict, what no checkpoint covers. */
function describePlan(plan: RewindPlan): string {
  const lines = [`Files: ${summariseChanges(plan.changes)}`];
  for (const change of plan.changes.slice(0, 30)) lines.push(`  ${change.status.padEnd(8)} ${change.path}`);
  if (plan.changes.length > 30) lines.push(`  … and ${plan.changes.length - 30} more`);
  if (plan.conflicts.length > 0)
    lines.push(`Changed outside gyre since the checkpoint (kept unless you overwrite): ${plan.conflicts.join(", ")}`);
  if (plan.skipped.length > 0)
    lines.push(`Not in any checkpoint, left as they are: ${plan.skipped.map((file) => file.path).join(", ")}`);
  if (plan.notice) lines.push(plan.notice);
  return lines.join("\n");
}

async function confirm(context: CommandContext, plan: RewindPlan): Promise<{ force: boolean } | undefined> {
  const items = [{ value: "rewind", label: "Rewind" }];
  if (plan.conflicts.length > 0) items.push({ value: "force", label: "Rewind and overwrite the conflicting files" });
  items.push({ value: "cancel", label: "Cancel" });
  const choice = await context.select("Rewind?", items, "rewind");
  if (choice === "rewind") return { force: false };
  if (choice === "force") return { force: true };
  return undefined;
}

/**
 * /rewind: back to before an earlier user message — files, conversation or both — after showing
 * which files change. The rewind is itself a checkpoint: /rewind again offers to undo it.
 */
export const rewindCommand: SlashCommand = {
  name: "rewind",
  description: "Undo back to before an earlier message: files, conversation or both",
  run: async (_args, context) => {
    const { session } = context;
    const targets = session.rewindTargets();
    if (targets.length === 0) return context.notify("There is no earlier message to rewind to.");
    const items = targets.map((target) => ({ value: target.entryId, label: target.label }));
    const entryId = await context.select("Rewind to before which message?", items, items[0]?.value);
    if (!entryId) return;
    const restore = (await context.select("Restore what?", restoreItems, "both")) as RewindRestore | undefined;
    if (!restore) return;
    const plan = await session.previewRewind({ entryId, restore });
    context.print(describePlan(plan));
    const confirmed = await confirm(context, plan);
    if (!confirmed) return context.notify("Nothing was changed.");
    const result = await session.submit({ type: "rewind", entryId, restore, ...confirmed });
    context.reloadChat();
    context.refreshInfo();
    const text = targets.find((target) => target.entryId === entryId)?.text;
    if (restore !== "code" && text !== undefined) context.setEditorText(text);
    const kept =
      result.conflicts.length > 0 && !confirmed.force ? `; kept ${result.conflicts.length} conflicting file(s)` : "";
    context.notify(`Rewound: ${summariseChanges(result.restored)}${kept}. /rewind again can undo this.`);
  },
};

import { summariseChanges } from "../../../core/checkpoints/tree-diff.js";
import type { SlashCommand } from "./types.js";

/** /diff: the files this session changed, from its first checkpoint to now. */
export const diffCommand: SlashCommand = {
  name: "diff",
  description: "List the files this session changed since its first checkpoint",
  run: async (_args, context) => {
    const { changes, notice, caveat } = await context.session.sessionChanges();
    if (notice) return context.notify(notice);
    const lines = [`Since the session's first checkpoint: ${summariseChanges(changes)}`];
    for (const change of changes) lines.push(`  ${change.status.padEnd(8)} ${change.path}`);
    context.print(lines.join("\n"));
    if (caveat) context.notify(caveat);
  },
};

import type { SlashCommand } from "./types.js";

/** /compact [focus]: summarises older messages now; the focus text steers the summary. */
export const compactCommand: SlashCommand = {
  name: "compact",
  description: "Summarise older messages to free context",
  argumentHint: "[focus]",
  run: async (args, context) => {
    const focus = args.trim();
    const compacted = await context.session.compact(focus || undefined);
    if (compacted) context.reloadChat();
    context.refreshInfo();
  },
};

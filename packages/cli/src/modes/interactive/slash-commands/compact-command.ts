import type { SlashCommand } from "./types.js";

/**
 * /compact [focus]: summarises older messages now; the focus text steers the summary. The
 * conversation on screen stays as it is: the controller adds the result at the bottom.
 */
export const compactCommand: SlashCommand = {
  name: "compact",
  description: "Summarise older messages to free context",
  argumentHint: "[focus]",
  run: async (args, context) => {
    const focus = args.trim();
    await context.session.submit({ type: "compact", ...(focus ? { focus } : {}) });
    context.refreshInfo();
  },
};

import type { SlashCommand } from "./types.js";

/** /quit: leaves gyre; the session is saved as always. */
export const quitCommand: SlashCommand = {
  name: "quit",
  description: "Exit gyre",
  allowWhileRunning: true,
  run: (_args, context) => context.exit(),
};

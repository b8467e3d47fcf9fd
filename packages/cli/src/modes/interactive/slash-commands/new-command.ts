import type { SlashCommand } from "./types.js";

/** /new: starts a new session in this folder (in memory when gyre runs with --no-session). */
export const newCommand: SlashCommand = {
  name: "new",
  description: "Start a new session",
  run: async (_args, context) => {
    await context.session.submit({ type: "new" });
    context.notify("New session started.");
  },
};

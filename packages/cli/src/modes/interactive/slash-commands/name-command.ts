import type { SlashCommand } from "./types.js";

/** /name [name]: names the session (shown by /resume and in the footer). */
export const nameCommand: SlashCommand = {
  name: "name",
  description: "Name this session",
  argumentHint: "[name]",
  allowWhileRunning: true,
  run: async (args, context) => {
    const { session } = context;
    const name = args.trim() || (await context.input("Session name", session.state.sessionName ?? ""))?.trim();
    if (!name) return;
    session.rename(name);
    context.refreshInfo();
    context.notify(`Session named "${name}".`);
  },
};

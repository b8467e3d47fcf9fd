import type { SlashCommand } from "./types.js";

/** /reload: settings, skills, prompt templates, AGENTS.md and extensions read again, without a restart. */
export const reloadCommand: SlashCommand = {
  name: "reload",
  description: "Reload settings, extensions, skills, prompt templates and AGENTS.md",
  run: async (_args, context) => {
    const { changes } = await context.session.submit({ type: "reload" });
    context.refreshCommands();
    context.refreshInfo();
    context.notify(changes.length > 0 ? `Reloaded:\n${changes.join("\n")}` : "Reloaded; nothing changed.");
  },
};

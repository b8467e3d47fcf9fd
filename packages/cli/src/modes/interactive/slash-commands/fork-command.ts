import type { SlashCommand } from "./types.js";

/** /fork: copies the current branch into a new session and continues there. */
export const forkCommand: SlashCommand = {
  name: "fork",
  description: "Continue in a copy of this session",
  run: async (_args, context) => {
    const { session } = context;
    const forked = await session.session.fork();
    await session.switchStore(forked, { closePrevious: true });
    context.notify(`Forked into session ${forked.id}; the original is unchanged.`);
  },
};

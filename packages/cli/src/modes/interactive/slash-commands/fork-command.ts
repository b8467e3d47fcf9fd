import type { SlashCommand } from "./types.js";

/** /fork: copies the current branch into a new session and continues there. */
export const forkCommand: SlashCommand = {
  name: "fork",
  description: "Continue in a copy of this session",
  run: async (_args, context) => {
    const { session } = context;
    await session.submit({ type: "fork" });
    context.notify(`Forked into session ${session.state.sessionId}; the original is unchanged.`);
  },
};

import { SessionManager } from "../../../core/session/session-manager.js";
import type { SlashCommand } from "./types.js";

/** /new: starts a new session in this folder (in memory when gyre runs with --no-session). */
export const newCommand: SlashCommand = {
  name: "new",
  description: "Start a new session",
  run: async (_args, context) => {
    const { session, runtime } = context;
    const store =
      session.sessionFile === undefined
        ? SessionManager.inMemory({ cwd: runtime.cwd })
        : SessionManager.create({ sessionsDir: context.sessionsDir, cwd: runtime.cwd });
    await session.switchStore(store);
    context.notify("New session started.");
  },
};

import { listResumableSessions, toSessionItems } from "../pickers/session-picker.js";
import type { SlashCommand } from "./types.js";

/** /resume: picks an earlier session of this folder and continues it. */
export const resumeCommand: SlashCommand = {
  name: "resume",
  description: "Continue an earlier session",
  run: async (_args, context) => {
    const { session, runtime } = context;
    const sessions = await listResumableSessions({
      sessionsDir: context.sessionsDir,
      cwd: runtime.cwd,
      exclude: session.state.sessionFile,
    });
    if (sessions.length === 0) return context.notify("No other sessions in this folder yet.");
    const path = await context.select("Resume session", toSessionItems(sessions));
    if (!path) return;
    try {
      await session.open(path);
    } catch (error) {
      return context.notify(`Cannot open that session: ${(error as Error).message}`, "error");
    }
    context.notify(`Resumed session ${session.state.sessionId}.`);
  },
};

import { deleteSessionFile, renameSessionFile } from "../../../core/session/session-actions.js";
import { listResumableSessions } from "../pickers/session-picker.js";
import { SessionPicker } from "../pickers/session-picker-view.js";
import type { SlashCommand } from "./types.js";

/** /resume: picks an earlier session (this folder, or every project) and continues it. */
export const resumeCommand: SlashCommand = {
  name: "resume",
  description: "Continue an earlier session",
  run: async (_args, context) => {
    const { session, layout } = context;
    const path = await layout.ask<string>(
      (done) =>
        new SessionPicker({
          title: "Resume session",
          load: (allProjects) =>
            listResumableSessions({
              sessionsDir: context.sessionsDir,
              cwd: session.info.cwd,
              allProjects,
              exclude: session.state.sessionFile,
            }),
          rename: renameSessionFile,
          remove: deleteSessionFile,
          home: process.env.HOME,
          requestRender: () => layout.render(),
          onDone: done,
        }),
    );
    if (!path) return;
    try {
      await session.submit({ type: "open", session: path });
    } catch (error) {
      return context.notify(`Cannot open that session: ${(error as Error).message}`, "error");
    }
    context.notify(`Resumed session ${session.state.sessionId}.`);
  },
};

import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { renderSessionHtml } from "../export-html.js";
import type { SlashCommand } from "./types.js";

/** /export [file]: writes the conversation as a standalone HTML file. */
export const exportCommand: SlashCommand = {
  name: "export",
  description: "Save this session as an HTML file",
  argumentHint: "[file]",
  allowWhileRunning: true,
  run: async (args, context) => {
    const { session, runtime } = context;
    const state = session.state;
    const path = resolve(runtime.cwd, args.trim() || `gyre-session-${state.sessionId.slice(0, 8)}.html`);
    const html = renderSessionHtml({
      title: state.sessionName ?? `gyre session ${state.sessionId}`,
      model: `${state.model.provider}/${state.model.id}`,
      messages: session.messages,
    });
    try {
      await writeFile(path, html, "utf8");
    } catch (error) {
      return context.notify(`Cannot write ${path}: ${(error as Error).message}`, "error");
    }
    context.notify(`Exported to ${path}`);
  },
};

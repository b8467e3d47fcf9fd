import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { SlashCommand } from "./types.js";

/**
 * /export [--jsonl] [file]: the whole session (every branch, the parts before a compaction too)
 * as a standalone HTML page, or with --jsonl its entries as JSON lines. Default folder:
 * `$GYRE_HOME/exports/`, so exports do not litter the project.
 */
export const exportCommand: SlashCommand = {
  name: "export",
  description: "Save the whole session as HTML (or --jsonl)",
  argumentHint: "[--jsonl] [file]",
  allowWhileRunning: true,
  run: async (args, context) => {
    const { session } = context;
    const info = session.info;
    const words = args.trim().split(/\s+/).filter(Boolean);
    const jsonl = words.includes("--jsonl");
    const target = words.filter((word) => word !== "--jsonl").join(" ");
    const state = session.state;
    const name = `gyre-session-${state.sessionId.slice(0, 8)}.${jsonl ? "jsonl" : "html"}`;
    const path = target ? resolve(info.cwd, target) : join(info.gyreHome, "exports", name);
    const entries = session.entries();
    let text: string;
    if (jsonl) text = entries.map((entry) => JSON.stringify(entry)).join("\n") + (entries.length > 0 ? "\n" : "");
    else {
      // The Markdown renderer is loaded only when someone exports.
      const { renderSessionHtml } = await import("../export-html.js");
      text = renderSessionHtml({
        title: state.sessionName ?? `gyre session ${state.sessionId}`,
        model: `${state.model.provider}/${state.model.id}`,
        entries,
      });
    }
    try {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text, "utf8");
    } catch (error) {
      return context.notify(`Cannot write ${path}: ${(error as Error).message}`, "error");
    }
    context.notify(`Exported ${entries.length} entries to ${path}`);
  },
};

/**
 * Memory in the TUI (docs/memory.md): `# text` asks where to remember the line and runs the
 * `remember` op; `/memory` opens the memory files in `$VISUAL`/`$EDITOR` and reads the context
 * files again once the editor exits.
 */
import { spawn } from "node:child_process";
import { keepingTrust, type MemoryScope, memoryFile } from "../../../core/memory/remember.js";
import type { CommandContext, SlashCommand } from "./types.js";

/**
 * The text of a `#` memory line, or undefined when `text` is no such line: one line starting with
 * one `#` (a pasted Markdown document, or a `##` heading, is a prompt like any other).
 */
export function parseMemoryInput(text: string): string | undefined {
  const match = /^#(?!#)[ \t]*([^\n]*)$/.exec(text.trim());
  return match ? (match[1] as string) : undefined;
}

/** `# text`: asks where, appends it, and says where it went (and whether the model will see it). */
export async function rememberInput(text: string, context: CommandContext): Promise<void> {
  if (!text.trim()) return context.notify("Type what to remember after #, e.g. # use pnpm, never npm.", "warning");
  const { session } = context;
  const place = { cwd: session.info.cwd, gyreHome: session.info.gyreHome };
  const scope = await context.select("Remember where?", [
    { value: "project", label: "Project", description: await memoryFile("project", place) },
    { value: "user", label: "User (every project)", description: await memoryFile("user", place) },
  ]);
  if (scope === undefined) return context.notify("Not remembered.");
  try {
    const result = await session.submit({ type: "remember", text, scope: scope as MemoryScope });
    context.notify(`Remembered in ${result.path}.`);
    if (!result.inContext)
      context.notify(
        "This folder is not trusted, so its AGENTS.md is not in the model's context; trust it (or pass --trust) to use it.",
        "warning",
      );
  } catch (error) {
    context.notify(`Could not remember it: ${(error as Error).message}`, "error");
  }
}

/** /memory: the project's and the user's memory files in the editor, then the context files read again. */
export const memoryCommand: SlashCommand = {
  name: "memory",
  description: "Edit the memory files (the project's and your AGENTS.md) in $EDITOR",
  run: async (_args, context) => {
    const { session } = context;
    const place = { cwd: session.info.cwd, gyreHome: session.info.gyreHome };
    const files = [await memoryFile("project", place), await memoryFile("user", place)];
    const editor = process.env.VISUAL?.trim() || process.env.EDITOR?.trim() || "vi";
    const { tui } = context.layout;
    tui.stop();
    let code: number | null;
    try {
      // The user's own edit: a folder they trusted stays trusted (docs/memory.md).
      code = await keepingTrust(place, () => runEditor(editor, files));
    } finally {
      tui.start();
      tui.requestRender(true);
    }
    if (code !== 0)
      context.notify(`${editor} exited with ${code ?? "a signal"}; the files are as it left them.`, "warning");
    const { changes } = await session.submit({ type: "reload" });
    const changed = changes.some((change) => change.startsWith("context files"));
    context.notify(changed ? `Memory read again: ${files.join(", ")}.` : "Memory unchanged.");
  },
};

/** Runs `editor` (a command line, as $EDITOR may hold flags) on `files` with the terminal. */
function runEditor(editor: string, files: readonly string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn("sh", ["-c", `${editor} "$@"`, "sh", ...files], { stdio: "inherit" });
    child.on("error", () => resolve(127));
    child.on("exit", (code) => resolve(code));
  });
}

import { visibleWidth } from "@mariozechner/pi-tui";
import { style } from "../theme.js";
import type { RuntimeCommandKind } from "./runtime-commands.js";
import type { SlashCommand } from "./types.js";

const keys: [string, string][] = [
  ["Enter", "send; while the agent works, queue a steering message"],
  ["Alt+Enter", "while the agent works, queue a follow-up for when it finishes"],
  ["Shift+Enter, Ctrl+J", "new line"],
  ["Esc", "abort the current run (the partial answer is kept)"],
  ["Ctrl+C", "clear the editor; on an empty editor, twice to exit"],
  ["Ctrl+D", "exit (when the editor is empty)"],
  ["Ctrl+O", "expand or collapse tool output"],
  ["Ctrl+T", "show or hide thinking"],
  ["Ctrl+P, Shift+Ctrl+P", "next or previous model (--models scopes the list)"],
  ["Ctrl+L", "pick a model"],
  ["Alt+T", "next thinking level"],
  ["!cmd, !!cmd", "run a shell command; ! sends its output to the model, !! does not"],
  ["Up/Down", "history (in an empty editor)"],
  ["@, Tab", "complete file paths"],
  ["Ctrl+-", "undo"],
];

const sections: [RuntimeCommandKind, string][] = [
  ["extension", "Extension commands"],
  ["template", "Prompt templates"],
  ["skill", "Skills"],
];

/** Two columns, the first padded to its widest cell so the descriptions line up. */
export function formatColumns(rows: readonly [string, string][], indent = "  "): string[] {
  const width = Math.max(0, ...rows.map(([left]) => visibleWidth(left)));
  return rows.map(
    ([left, right]) => `${indent}${style.cyan(left)}${" ".repeat(width - visibleWidth(left) + 2)}${style.gray(right)}`,
  );
}

/** /help: built-in commands, the runtime's extension commands, templates and skills, and keys. */
export const helpCommand: SlashCommand = {
  name: "help",
  description: "Show commands and keys",
  allowWhileRunning: true,
  run: (_args, context) => {
    const builtIn = context.commands.map((command): [string, string] => [
      `/${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ""}`,
      command.description,
    ]);
    const lines = [style.bold("Commands"), ...formatColumns(builtIn)];
    for (const [kind, title] of sections) {
      const rows = context.runtimeCommands
        .filter((command) => command.kind === kind)
        .map((command): [string, string] => [`/${command.name}`, command.description]);
      if (rows.length > 0) lines.push("", style.bold(title), ...formatColumns(rows));
    }
    lines.push("", style.bold("Keys"), ...formatColumns(keys));
    context.print(lines.join("\n"));
  },
};

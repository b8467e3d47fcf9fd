import { style } from "../theme.js";
import type { SlashCommand } from "./types.js";

const keys: [string, string][] = [
  ["Enter", "send; while the agent works, queue a steering message"],
  ["Alt+Enter", "while the agent works, queue a follow-up for when it finishes"],
  ["Shift+Enter, Ctrl+J", "new line"],
  ["Esc", "abort the current run (the partial answer is kept)"],
  ["Ctrl+C", "clear the editor; twice to exit"],
  ["Ctrl+D", "exit (when the editor is empty)"],
  ["Ctrl+O", "expand or collapse tool output"],
  ["Ctrl+T", "show or hide thinking"],
  ["Up/Down", "history (in an empty editor)"],
  ["@, Tab", "complete file paths"],
  ["Ctrl+-", "undo"],
];

/** /help: commands and keys. */
export const helpCommand: SlashCommand = {
  name: "help",
  description: "Show commands and keys",
  allowWhileRunning: true,
  run: (_args, context) => {
    const commands = context.commands.map(
      (command) =>
        `${style.cyan(`/${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ""}`)}  ${style.gray(command.description)}`,
    );
    const keyLines = keys.map(([key, what]) => `${style.cyan(key)}  ${style.gray(what)}`);
    context.print([style.bold("Commands"), ...commands, "", style.bold("Keys"), ...keyLines].join("\n"));
  },
};

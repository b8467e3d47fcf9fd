import { describeState, formatDuration, type ShellInfo } from "../../../core/tools/background-shells.js";
import { sanitizeText } from "../sanitize-text.js";
import { style } from "../theme.js";
import type { SlashCommand } from "./types.js";

/** Commands longer than this are cut in the list (the whole command is in the bash call above). */
const commandWidth = 60;

/** One line per shell: id, state, how long it ran, the command. */
export function formatShells(shells: readonly ShellInfo[], now: number): string[] {
  return shells.map((shell) => {
    const runtime = formatDuration((shell.endedAt ?? now) - shell.startedAt);
    const state = shell.state === "running" ? `running` : describeState(shell, now);
    const coloured =
      shell.state === "running"
        ? style.green(state)
        : shell.state === "exited" && shell.exitCode === 0
          ? state
          : style.red(state);
    // The command came from the model: no terminal escapes get through.
    const oneLine = sanitizeText(shell.command.replace(/\s+/g, " "));
    const command = oneLine.length > commandWidth ? `${oneLine.slice(0, commandWidth - 1)}…` : oneLine;
    return `${style.cyan(shell.id.padEnd(9))} ${coloured}  ${style.gray(runtime.padStart(10))}  ${command}`;
  });
}

/** /shells [kill <id>]: the background shells bash started (id, state, runtime, command), or stop one. */
export const shellsCommand: SlashCommand = {
  name: "shells",
  description: "List background shells; /shells kill <id> stops one",
  argumentHint: "[kill <id>]",
  allowWhileRunning: true,
  run: async (args, context) => {
    const shells = context.session.info.shells;
    const words = args.trim().split(/\s+/).filter(Boolean);
    if (words[0] === "kill") {
      const id = words[1];
      if (!shells || id === undefined) {
        context.notify("Usage: /shells kill <id>, with an id from /shells.", "warning");
        return;
      }
      try {
        const info = await shells.kill(id);
        context.notify(`${info.id}: ${describeState(info, Date.now())}.`);
      } catch (error) {
        context.notify((error as Error).message, "warning");
      }
      return;
    }
    if (words.length > 0) {
      context.notify(`Unknown /shells argument "${args.trim()}"; use /shells or /shells kill <id>.`, "warning");
      return;
    }
    const list = shells?.list() ?? [];
    if (list.length === 0) {
      context.notify("No background shells; the model starts one with bash run_in_background.");
      return;
    }
    context.print(formatShells(list, Date.now()).join("\n"));
  },
};

import type { SlashCommand } from "./types.js";

/** The OSC 52 sequence that asks the terminal to put `text` on the system clipboard. */
export function osc52(text: string): string {
  return `\x1b]52;c;${Buffer.from(text, "utf8").toString("base64")}\x07`;
}

/** /copy: puts the last answer on the clipboard through the terminal (OSC 52). */
export const copyCommand: SlashCommand = {
  name: "copy",
  description: "Copy the last answer to the clipboard (OSC 52)",
  allowWhileRunning: true,
  run: (_args, context) => {
    const text = context.session.getLastAssistantText();
    if (!text) return context.notify("There is no answer to copy yet.");
    context.layout.tui.terminal.write(osc52(text));
    context.notify(
      `Sent the last answer (${text.length} characters) to the clipboard with OSC 52. ` +
        "If nothing arrives, your terminal (or tmux: set -g set-clipboard on) does not allow clipboard writes; use /export instead.",
    );
  },
};

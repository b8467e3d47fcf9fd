import { visibleWidth } from "@mariozechner/pi-tui";
import {
  EDITOR_KEY_ACTIONS,
  type EditorKeyAction,
  KEY_ACTIONS,
  type KeyAction,
  type Keybindings,
} from "../keybindings.js";
import { style } from "../theme.js";
import type { RuntimeCommandKind } from "./runtime-commands.js";
import type { SlashCommand } from "./types.js";

/** `shift+ctrl+p` as people write it: `Shift+Ctrl+P`. */
export function keyLabel(key: string): string {
  const names: Record<string, string> = { escape: "Esc", esc: "Esc", pageUp: "PageUp", pageDown: "PageDown" };
  const parts = key.endsWith("++") ? [...key.slice(0, -2).split("+"), "+"] : key.split("+");
  return parts.map((part) => names[part] ?? part.charAt(0).toUpperCase() + part.slice(1)).join("+");
}

/** The rows of the Keys section, each action under the keys it has now (keybindings.json applied). */
function keyRows(bindings: Keybindings): { keys: [string, string][]; editing: [string, string][] } {
  const of = (action: KeyAction | EditorKeyAction) => bindings[action].map(keyLabel).join(", ") || "(no key)";
  const described = (action: KeyAction): [string, string] => [of(action), KEY_ACTIONS[action].description];
  const editor = (action: EditorKeyAction): [string, string] => [of(action), EDITOR_KEY_ACTIONS[action].description];
  const keys: [string, string][] = [
    editor("submit"),
    described("followUp"),
    [`${of("newLine")}, Ctrl+J`, "new line"],
    ...(["abort", "clear", "exit", "expandTools", "toggleThinking"] as const).map(described),
    [`${of("cycleModelForward")} / ${of("cycleModelBackward")}`, "next or previous model (--models scopes the list)"],
    ...(["selectModel", "cycleThinkingLevel", "cyclePermissionMode"] as const).map(described),
    ["!cmd, !!cmd", "run a shell command; ! sends its output to the model, !! does not"],
    [`${of("cursorUp")} / ${of("cursorDown")}`, "history (on the first or last line)"],
    [`@, ${of("tab")}`, "complete file paths"],
  ];
  const shown = new Set<string>(["submit", "newLine", "cursorUp", "cursorDown", "tab"]);
  const editing = (Object.keys(EDITOR_KEY_ACTIONS) as EditorKeyAction[])
    .filter((action) => !shown.has(action))
    .map(editor);
  return { keys, editing };
}

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
    const { keys, editing } = keyRows(context.keybindings);
    lines.push("", style.bold("Keys"), ...formatColumns(keys));
    lines.push("", style.bold("Editing (keybindings.json can move every key, see docs/keybindings.md)"));
    lines.push(...formatColumns(editing));
    context.print(lines.join("\n"));
  },
};

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type Keybinding,
  KeybindingsManager,
  type KeyId,
  matchesKey,
  setKeybindings,
  TUI_KEYBINDINGS,
} from "@mariozechner/pi-tui";

/** What the global keys of the TUI do, with their default keys (Pi's where gyre has the action). */
export const KEY_ACTIONS = {
  abort: { keys: ["escape"], description: "abort the run or the running !command" },
  followUp: { keys: ["alt+enter"], description: "while the agent works, queue a follow-up" },
  clear: { keys: ["ctrl+c"], description: "clear the editor; twice on an empty editor quits" },
  exit: { keys: ["ctrl+d"], description: "quit (on an empty editor)" },
  expandTools: { keys: ["ctrl+o"], description: "expand or collapse tool output and subagent lines" },
  toggleThinking: { keys: ["ctrl+t"], description: "show or hide thinking" },
  cycleModelForward: { keys: ["ctrl+p"], description: "next model (of --models, else every model with a key)" },
  cycleModelBackward: { keys: ["shift+ctrl+p"], description: "previous model" },
  selectModel: { keys: ["ctrl+l"], description: "open the model picker" },
  cycleThinkingLevel: { keys: ["alt+t"], description: "next thinking level (off, low, medium, high)" },
  cyclePermissionMode: { keys: ["shift+tab"], description: "next permission mode (default, plan)" },
} as const satisfies Record<string, { keys: readonly string[]; description: string }>;

export type KeyAction = keyof typeof KEY_ACTIONS;

/**
 * The editor's own keys (pi-tui's editor), under gyre's names; their defaults are pi-tui's.
 * Up and Down also walk the prompt history when the cursor is on the first or last line.
 */
export const EDITOR_KEY_ACTIONS = {
  submit: { id: "tui.input.submit", description: "send; while the agent works, queue a steering message" },
  newLine: { id: "tui.input.newLine", description: "new line (Ctrl+J always is one too)" },
  tab: { id: "tui.input.tab", description: "complete file paths (after @) and commands (after /)" },
  cursorUp: { id: "tui.editor.cursorUp", description: "line up; on the first line, the previous prompt" },
  cursorDown: { id: "tui.editor.cursorDown", description: "line down; on the last line, the next prompt" },
  cursorLeft: { id: "tui.editor.cursorLeft", description: "character left" },
  cursorRight: { id: "tui.editor.cursorRight", description: "character right" },
  cursorWordLeft: { id: "tui.editor.cursorWordLeft", description: "word left" },
  cursorWordRight: { id: "tui.editor.cursorWordRight", description: "word right" },
  cursorLineStart: { id: "tui.editor.cursorLineStart", description: "start of the line" },
  cursorLineEnd: { id: "tui.editor.cursorLineEnd", description: "end of the line" },
  pageUp: { id: "tui.editor.pageUp", description: "a page up in a long prompt" },
  pageDown: { id: "tui.editor.pageDown", description: "a page down in a long prompt" },
  jumpForward: { id: "tui.editor.jumpForward", description: "jump to the next occurrence of the character typed next" },
  jumpBackward: { id: "tui.editor.jumpBackward", description: "jump back to the character typed next" },
  deleteCharBackward: { id: "tui.editor.deleteCharBackward", description: "delete the character (or chip) before" },
  deleteCharForward: { id: "tui.editor.deleteCharForward", description: "delete the character after" },
  deleteWordBackward: { id: "tui.editor.deleteWordBackward", description: "delete the word before" },
  deleteWordForward: { id: "tui.editor.deleteWordForward", description: "delete the word after" },
  deleteToLineStart: { id: "tui.editor.deleteToLineStart", description: "delete to the start of the line" },
  deleteToLineEnd: { id: "tui.editor.deleteToLineEnd", description: "delete to the end of the line" },
  yank: { id: "tui.editor.yank", description: "paste what was deleted last" },
  yankPop: { id: "tui.editor.yankPop", description: "after a yank, paste the deletion before it instead" },
  undo: { id: "tui.editor.undo", description: "undo" },
} as const satisfies Record<string, { id: Keybinding; description: string }>;

export type EditorKeyAction = keyof typeof EDITOR_KEY_ACTIONS;

/** The keys of each action. */
export type Keybindings = Record<KeyAction | EditorKeyAction, readonly KeyId[]>;

const ALL_ACTIONS = [...Object.keys(KEY_ACTIONS), ...Object.keys(EDITOR_KEY_ACTIONS)] as (
  | KeyAction
  | EditorKeyAction
)[];

function editorDefault(action: EditorKeyAction): readonly KeyId[] {
  const keys: KeyId | readonly KeyId[] = TUI_KEYBINDINGS[EDITOR_KEY_ACTIONS[action].id].defaultKeys;
  return typeof keys === "string" ? [keys] : keys;
}

/** The default keys of `action`. */
export function defaultKeysOf(action: KeyAction | EditorKeyAction): readonly KeyId[] {
  return action in KEY_ACTIONS
    ? (KEY_ACTIONS[action as KeyAction].keys as readonly KeyId[])
    : editorDefault(action as EditorKeyAction);
}

/**
 * Gives the editor (every pi-tui editor and input of this process) the keys of `bindings`'
 * editor actions; lists and dialogs keep theirs.
 */
export function applyEditorKeybindings(bindings: Keybindings): void {
  const config = Object.fromEntries(
    (Object.keys(EDITOR_KEY_ACTIONS) as EditorKeyAction[]).map((action) => [
      EDITOR_KEY_ACTIONS[action].id,
      [...bindings[action]],
    ]),
  );
  setKeybindings(new KeybindingsManager(TUI_KEYBINDINGS, config));
}

const MODIFIERS = new Set(["ctrl", "shift", "alt", "super"]);
const SPECIAL_KEYS = new Set(
  "escape esc enter return tab space backspace delete insert clear home end pageUp pageDown up down left right f1 f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 f12".split(
    " ",
  ),
);
const SYMBOL_KEYS = new Set("`-=[]\\;',./!@#$%^&*()_+|~{}:<>?".split(""));

/** The defaults, as the actions' tables give them. */
export function defaultKeybindings(): Keybindings {
  return Object.fromEntries(ALL_ACTIONS.map((action) => [action, defaultKeysOf(action)])) as Keybindings;
}

/** Whether `data` (raw terminal input) is one of `action`'s keys. */
export function matchesAction(bindings: Keybindings, data: string, action: KeyAction): boolean {
  return bindings[action].some((key) => matchesKey(data, key));
}

/** Whether `text` names a key pi-tui can match: modifiers (ctrl, shift, alt, super) joined by + to one key. */
export function isKeyId(text: string): text is KeyId {
  // "ctrl++" is ctrl with the plus key: the base is whatever follows the last modifier.
  const parts = text.endsWith("++") ? [...text.slice(0, -2).split("+"), "+"] : text.split("+");
  const base = parts.pop() ?? "";
  if (new Set(parts).size !== parts.length || parts.some((part) => !MODIFIERS.has(part))) return false;
  return /^[a-z0-9]$/.test(base) || SPECIAL_KEYS.has(base) || SYMBOL_KEYS.has(base);
}

/**
 * The keybindings of `$GYRE_HOME/keybindings.json` (`{"action": "key" | ["key", …]}`) over the
 * defaults. Every problem is reported, one sentence each, and the entry it concerns keeps its
 * default; a missing file is no problem.
 */
export async function loadKeybindings(gyreHome: string): Promise<{ bindings: Keybindings; problems: string[] }> {
  const path = join(gyreHome, "keybindings.json");
  const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) =>
    error.code === "ENOENT" ? undefined : `\u0000${error.message}`,
  );
  if (text === undefined) return { bindings: defaultKeybindings(), problems: [] };
  if (text.startsWith("\u0000"))
    return { bindings: defaultKeybindings(), problems: [`Cannot read ${path}: ${text.slice(1)}.`] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return {
      bindings: defaultKeybindings(),
      problems: [`${path} is not valid JSON (${(error as Error).message}); using the default keys.`],
    };
  }
  return parseKeybindings(parsed, path);
}

/** Checks a parsed keybindings object (see `loadKeybindings`); `where` names it in problems. */
export function parseKeybindings(value: unknown, where: string): { bindings: Keybindings; problems: string[] } {
  const bindings = defaultKeybindings();
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return {
      bindings,
      problems: [`${where} must be an object of action → key(s), such as {"selectModel": "ctrl+l"}.`],
    };
  const problems: string[] = [];
  for (const [action, keys] of Object.entries(value)) {
    if (!(ALL_ACTIONS as string[]).includes(action)) {
      problems.push(`${where}: unknown action "${action}"; the actions are ${ALL_ACTIONS.join(", ")}.`);
      continue;
    }
    const list = typeof keys === "string" ? [keys] : keys;
    if (!Array.isArray(list) || list.some((key) => typeof key !== "string")) {
      problems.push(`${where}: "${action}" must be a key or a list of keys, such as "ctrl+l" or ["ctrl+l", "f2"].`);
      continue;
    }
    const bad = list.filter((key) => !isKeyId(key));
    if (bad.length > 0) {
      problems.push(
        `${where}: "${action}" has ${bad.map((key) => `"${key}"`).join(", ")}, not a key; write keys like ctrl+p, alt+enter, shift+tab or f5.`,
      );
      continue;
    }
    bindings[action as KeyAction | EditorKeyAction] = list as KeyId[];
  }
  problems.push(...findClashes(bindings, where));
  return { bindings, problems };
}

/**
 * A key bound to two actions would run only the first; say so rather than guess. The defaults'
 * own overlap (Ctrl+D quits on an empty editor, else deletes forward) is meant.
 */
function findClashes(bindings: Keybindings, where: string): string[] {
  const owner = new Map<string, KeyAction | EditorKeyAction>();
  const problems: string[] = [];
  const isDefault = (action: KeyAction | EditorKeyAction, key: KeyId) => defaultKeysOf(action).includes(key);
  for (const action of ALL_ACTIONS)
    for (const key of bindings[action]) {
      const first = owner.get(key);
      if (!first) owner.set(key, action);
      else if (!(isDefault(first, key) && isDefault(action, key)))
        problems.push(`${where}: ${key} is bound to both ${first} and ${action}; give one of them another key.`);
    }
  return problems;
}

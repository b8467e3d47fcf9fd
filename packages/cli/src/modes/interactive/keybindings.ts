import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type KeyId, matchesKey } from "@mariozechner/pi-tui";

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

/** The keys of each action. */
export type Keybindings = Record<KeyAction, readonly KeyId[]>;

const MODIFIERS = new Set(["ctrl", "shift", "alt", "super"]);
const SPECIAL_KEYS = new Set(
  "escape esc enter return tab space backspace delete insert clear home end pageUp pageDown up down left right f1 f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 f12".split(
    " ",
  ),
);
const SYMBOL_KEYS = new Set("`-=[]\\;',./!@#$%^&*()_+|~{}:<>?".split(""));

/** The defaults, as the actions' table gives them. */
export function defaultKeybindings(): Keybindings {
  const entries = Object.entries(KEY_ACTIONS).map(([action, spec]) => [action, spec.keys as readonly KeyId[]]);
  return Object.fromEntries(entries) as Keybindings;
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
  const actions = Object.keys(KEY_ACTIONS);
  for (const [action, keys] of Object.entries(value)) {
    if (!actions.includes(action)) {
      problems.push(`${where}: unknown action "${action}"; the actions are ${actions.join(", ")}.`);
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
    bindings[action as KeyAction] = list as KeyId[];
  }
  problems.push(...findClashes(bindings, where));
  return { bindings, problems };
}

/** A key bound to two actions would run only the first; say so rather than guess. */
function findClashes(bindings: Keybindings, where: string): string[] {
  const owner = new Map<string, KeyAction>();
  const problems: string[] = [];
  for (const [action, keys] of Object.entries(bindings) as [KeyAction, readonly KeyId[]][])
    for (const key of keys) {
      const first = owner.get(key);
      if (first)
        problems.push(`${where}: ${key} is bound to both ${first} and ${action}; give one of them another key.`);
      else owner.set(key, action);
    }
  return problems;
}

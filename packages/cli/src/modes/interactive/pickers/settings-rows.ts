/**
 * The settings `/settings` edits, each with how its value reads in the list and which settings
 * file changes it makes. Values come from and go to `$GYRE_HOME/settings.json` as written there.
 */
import type { SettingsChange } from "../../../core/config/settings-writer.js";

/** One editable setting. */
export type SettingRow = {
  id: string;
  label: string;
  description: string;
  /** The value as shown, from the user's settings file. */
  read(settings: Record<string, unknown>): string;
  /** Values cycled with Enter/Space/←→; without it Enter opens a text input. */
  values?: readonly string[];
  /** The file changes for a chosen or typed value. */
  toChanges(text: string): SettingsChange[];
};

export const NOT_SET = "(not set)";

/** How a setting left out of the file reads: the value gyre uses then, marked as the default. */
export const byDefault = (value: string): string => `${value} (default)`;

/** Whether `text` stands for a setting left out of the file (it is removed when chosen). */
export function isUnsetLabel(text: string): boolean {
  return text === NOT_SET || text.endsWith(" (default)");
}

const field = (settings: Record<string, unknown>, key: string): unknown => {
  const [top, nested] = key.split(".", 2) as [string, string | undefined];
  const value = settings[top];
  if (nested === undefined) return value;
  return value && typeof value === "object" ? (value as Record<string, unknown>)[nested] : undefined;
};

const shown = (value: unknown, fallback = NOT_SET): string =>
  value === undefined ? fallback : typeof value === "string" ? value : JSON.stringify(value);

/**
 * A setting chosen from `values`. The first value is gyre's default: left out of the file it reads
 * `<default> (default)`, and choosing that removes the key (so a later default applies).
 */
function choice(id: string, label: string, values: readonly string[], description: string): SettingRow {
  const [first = NOT_SET, ...rest] = values;
  return {
    id,
    label,
    description,
    values: [byDefault(first), ...rest],
    read: (settings) => shown(field(settings, id), byDefault(first)),
    toChanges: (text) => [{ key: id, value: isUnsetLabel(text) ? undefined : text }],
  };
}

/**
 * A number typed as text; empty removes it. Text that is not a number is passed on as it is, so
 * the settings check (the one loading uses) names the problem.
 */
function numberRow(id: string, label: string, description: string, unset: string): SettingRow {
  return {
    id,
    label,
    description: `${description} Empty removes it.`,
    read: (settings) => shown(field(settings, id), byDefault(unset)),
    toChanges: (text) => {
      const trimmed = text.trim();
      if (trimmed === "" || isUnsetLabel(trimmed)) return [{ key: id, value: undefined }];
      const number = Number(trimmed);
      return [{ key: id, value: Number.isNaN(number) ? trimmed : number }];
    },
  };
}

/** The rows, in the order the editor lists them; `themes` are the names a theme can take. */
export function createSettingRows(themes: readonly string[]): SettingRow[] {
  return [
    {
      id: "defaultModel",
      label: "default model",
      description:
        "The model a new run starts with, as provider/model (openai/gpt-4o) or a model id. Empty removes it.",
      read: (settings) => {
        const model = field(settings, "defaultModel");
        const provider = field(settings, "defaultProvider");
        if (model === undefined) return provider === undefined ? NOT_SET : `${shown(provider)}/…`;
        return provider === undefined ? shown(model) : `${shown(provider)}/${shown(model)}`;
      },
      toChanges: (text) => {
        const trimmed = text.trim();
        if (trimmed === "" || trimmed === NOT_SET)
          return [
            { key: "defaultProvider", value: undefined },
            { key: "defaultModel", value: undefined },
          ];
        const slash = trimmed.indexOf("/");
        if (slash < 0) return [{ key: "defaultModel", value: trimmed }];
        return [
          { key: "defaultProvider", value: trimmed.slice(0, slash) },
          { key: "defaultModel", value: trimmed.slice(slash + 1) },
        ];
      },
    },
    choice("thinking", "thinking", ["off", "low", "medium", "high"], "The thinking level new runs start with."),
    {
      id: "theme",
      label: "theme",
      description: "Colours of this screen; applies at once. Files in $GYRE_HOME/themes add themes.",
      values: themes,
      read: (settings) => shown(field(settings, "theme"), "dark"),
      toChanges: (text) => [{ key: "theme", value: text }],
    },
    choice(
      "sandbox.mode",
      "sandbox mode",
      ["workspace-write", "read-only", "off"],
      "What bash commands may touch (default workspace-write); from the next start.",
    ),
    choice(
      "approval",
      "approval",
      ["ask", "deny", "allow"],
      "Who decides calls that need more than the sandbox gives (default: ask here, deny in -p); from the next start.",
    ),
    {
      ...choice(
        "compaction.enabled",
        "auto-compaction",
        ["on", "off"],
        "Summarise older messages when the context fills up.",
      ),
      read: (settings) => {
        const value = field(settings, "compaction.enabled");
        return value === undefined ? byDefault("on") : value === true ? "on" : value === false ? "off" : shown(value);
      },
      toChanges: (text) => [{ key: "compaction.enabled", value: isUnsetLabel(text) ? undefined : text === "on" }],
    },
    numberRow("maxTurns", "max turns", "Stop a run after this many model calls.", "no limit"),
    numberRow("maxCost", "max cost (USD)", "Stop a run once it has cost this much.", "no limit"),
    numberRow("retry.maxRetries", "retries", "How often a failed model call is retried (at most 100).", "3"),
  ];
}

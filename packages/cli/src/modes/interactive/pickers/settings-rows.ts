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

const field = (settings: Record<string, unknown>, key: string): unknown => {
  const [top, nested] = key.split(".", 2) as [string, string | undefined];
  const value = settings[top];
  if (nested === undefined) return value;
  return value && typeof value === "object" ? (value as Record<string, unknown>)[nested] : undefined;
};

const shown = (value: unknown, fallback = NOT_SET): string =>
  value === undefined ? fallback : typeof value === "string" ? value : JSON.stringify(value);

/** A setting chosen from `values`; NOT_SET among them removes the key. */
function choice(
  id: string,
  label: string,
  values: readonly string[],
  description: string,
  fallback?: string,
): SettingRow {
  return {
    id,
    label,
    description,
    values,
    read: (settings) => shown(field(settings, id), fallback),
    toChanges: (text) => [{ key: id, value: text === NOT_SET ? undefined : text }],
  };
}

/**
 * A number typed as text; empty removes it. Text that is not a number is passed on as it is, so
 * the settings check (the one loading uses) names the problem.
 */
function numberRow(id: string, label: string, description: string): SettingRow {
  return {
    id,
    label,
    description: `${description} Empty removes it.`,
    read: (settings) => shown(field(settings, id)),
    toChanges: (text) => {
      const trimmed = text.trim();
      if (trimmed === "" || trimmed === NOT_SET) return [{ key: id, value: undefined }];
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
    choice(
      "thinking",
      "thinking",
      [NOT_SET, "off", "low", "medium", "high"],
      "The thinking level new runs start with.",
    ),
    choice(
      "theme",
      "theme",
      themes,
      "Colours of this screen; applies at once. Files in $GYRE_HOME/themes add themes.",
      "dark",
    ),
    choice(
      "sandbox.mode",
      "sandbox mode",
      [NOT_SET, "workspace-write", "read-only", "off"],
      "What bash commands may touch (default workspace-write); from the next start.",
    ),
    choice(
      "approval",
      "approval",
      [NOT_SET, "ask", "deny", "allow"],
      "Who decides calls that need more than the sandbox gives (default: ask here, deny in -p); from the next start.",
    ),
    {
      ...choice(
        "compaction.enabled",
        "auto-compaction",
        [NOT_SET, "on", "off"],
        "Summarise older messages when the context fills up.",
      ),
      read: (settings) => {
        const value = field(settings, "compaction.enabled");
        return value === undefined ? NOT_SET : value === true ? "on" : value === false ? "off" : shown(value);
      },
      toChanges: (text) => [{ key: "compaction.enabled", value: text === NOT_SET ? undefined : text === "on" }],
    },
    numberRow("maxTurns", "max turns", "Stop a run after this many model calls."),
    numberRow("maxCost", "max cost (USD)", "Stop a run once it has cost this much."),
    numberRow("retry.maxRetries", "retries", "How often a failed model call is retried (at most 100)."),
  ];
}

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ThinkingLevel } from "@gyre/ai";

/** User and project settings (`$GYRE_HOME/settings.json`, `.gyre/settings.json`; project wins). */
export type Settings = {
  defaultProvider?: string;
  defaultModel?: string;
  thinking?: ThinkingLevel;
  tools?: string[];
  maxTurns?: number;
  maxCost?: number;
  maxTotalTokens?: number;
  maxWallTimeMs?: number;
  retry?: { maxRetries?: number; baseDelayMs?: number; maxDelayMs?: number };
  compaction?: { enabled?: boolean; reserveTokens?: number; keepRecentTokens?: number };
  allowedPaths?: string[];
  bashTimeoutMs?: number;
};

export type LoadedSettings = { settings: Settings; files: string[] };

type FieldType = "string" | "number" | "boolean" | "string[]" | "object";
const schema: Record<keyof Settings, FieldType> = {
  defaultProvider: "string",
  defaultModel: "string",
  thinking: "string",
  tools: "string[]",
  maxTurns: "number",
  maxCost: "number",
  maxTotalTokens: "number",
  maxWallTimeMs: "number",
  retry: "object",
  compaction: "object",
  allowedPaths: "string[]",
  bashTimeoutMs: "number",
};

/** A settings file that is missing is fine; one that is broken is a `SettingsError` naming the file and problem. */
export class SettingsError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = "SettingsError";
  }
}

/**
 * Reads one settings file. Returns `undefined` when it does not exist; throws `SettingsError`
 * for invalid JSON or a field of the wrong type (never a stack trace for the user).
 */
export async function readSettingsFile(file: string): Promise<Settings | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new SettingsError(file, `cannot be read (${(error as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SettingsError(file, `is not valid JSON (${(error as Error).message}); fix or delete it.`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new SettingsError(file, "must contain a JSON object.");
  }
  for (const [key, value] of Object.entries(parsed)) {
    const expected = schema[key as keyof Settings];
    if (!expected) continue;
    if (!matchesType(value, expected)) throw new SettingsError(file, `"${key}" must be ${describeType(expected)}.`);
  }
  return parsed as Settings;
}

function matchesType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case "string[]":
      return Array.isArray(value) && value.every((item) => typeof item === "string");
    case "object":
      return !!value && typeof value === "object" && !Array.isArray(value);
    case "string":
    case "number":
    case "boolean":
      return typeof value === type;
    default: {
      const never: never = type;
      return never;
    }
  }
}

function describeType(type: FieldType): string {
  return type === "string[]" ? "a list of strings" : type === "object" ? "an object" : `a ${type}`;
}

/**
 * Loads `$GYRE_HOME/settings.json` then, when `includeProject`, `<cwd>/.gyre/settings.json`
 * on top (project wins, nested objects merged one level deep).
 */
export async function loadSettings(options: {
  gyreHome: string;
  cwd: string;
  includeProject: boolean;
}): Promise<LoadedSettings> {
  const files = [join(options.gyreHome, "settings.json")];
  if (options.includeProject) files.push(join(options.cwd, ".gyre", "settings.json"));
  const settings: Settings = {};
  const loaded: string[] = [];
  for (const file of files) {
    const next = await readSettingsFile(file);
    if (!next) continue;
    loaded.push(file);
    mergeSettings(settings, next);
  }
  return { settings, files: loaded };
}

function mergeSettings(target: Settings, source: Settings): void {
  for (const [key, value] of Object.entries(source) as [keyof Settings, unknown][]) {
    const existing = target[key];
    if (value && typeof value === "object" && !Array.isArray(value) && existing && typeof existing === "object") {
      Object.assign(target, { [key]: { ...(existing as object), ...(value as object) } });
    } else {
      Object.assign(target, { [key]: value });
    }
  }
}

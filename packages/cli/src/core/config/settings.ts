import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ThinkingLevel } from "@gyre/ai";
import type { CheckpointLimits } from "../checkpoints/types.js";
import { CliError } from "../errors.js";
import type { PermissionRules } from "../permissions/permission-rules.js";
import { BUILT_IN_TOOL_NAMES, isBuiltInToolName } from "../tools/tool-names.js";
import { checkPermissionSettings, checkSandboxSettings, type SandboxSettings } from "./safety-settings.js";

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
  /** A tool call with larger arguments (JSON bytes) is not run nor kept; also write's content limit (default 1048576). */
  maxToolArgumentBytes?: number;
  /** A model stream that sends nothing for this long fails (default 120000). */
  idleTimeoutMs?: number;
  /** What bash commands may touch (DESIGN §8). */
  sandbox?: SandboxSettings;
  /** allow / ask / deny rules for tool calls (DESIGN §8). */
  permissions?: PermissionRules;
  /** How long headless runs wait for MCP servers to connect (default 10000). */
  mcpStartupTimeoutMs?: number;
  /** Let the model search the web with the provider's server-side tool (as `--web-search`). */
  webSearch?: boolean;
  /** Size caps of rewind's workspace snapshots, in bytes (DESIGN §10). */
  checkpoints?: Partial<CheckpointLimits>;
  /** The TUI's finish notification: a bell, an OSC 9 or OSC 777 desktop notification, or none. */
  notify?: NotifyChannel;
  /** Only runs at least this long notify when they end (default 10000). */
  notifyAfterMs?: number;
  /** MCP sampling (a server asking gyre's model): `ask` (default: the TUI or RPC client decides; print denies), `allow`, `deny`. */
  mcpSampling?: "ask" | "allow" | "deny";
  /** Package sources `gyre install` (without arguments) installs: npm:…, git:…, or paths. */
  packages?: string[];
  /** Interactive colours: `dark`, `light` or a file `$GYRE_HOME/themes/<name>.json` (default dark). */
  theme?: string;
  /** Who decides calls that need more than the sandbox gives, when `--approval` is not given. */
  approval?: "ask" | "deny" | "allow";
};

/** How the TUI tells the user a long run ended. */
export type NotifyChannel = "bell" | "osc9" | "osc777" | "off";
const notifyChannels: readonly NotifyChannel[] = ["bell", "osc9", "osc777", "off"];

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
  maxToolArgumentBytes: "number",
  idleTimeoutMs: "number",
  sandbox: "object",
  permissions: "object",
  mcpStartupTimeoutMs: "number",
  webSearch: "boolean",
  checkpoints: "object",
  notify: "string",
  notifyAfterMs: "number",
  mcpSampling: "string",
  packages: "string[]",
  theme: "string",
  approval: "string",
};

const thinkingLevels = ["off", "low", "medium", "high"];
const approvalModes = ["ask", "deny", "allow"];
/** Number fields that must be positive; the integer ones say so. */
const positiveNumbers: Partial<Record<keyof Settings, "integer" | "number">> = {
  maxTurns: "integer",
  maxCost: "number",
  maxTotalTokens: "integer",
  maxWallTimeMs: "number",
  bashTimeoutMs: "number",
  maxToolArgumentBytes: "integer",
  idleTimeoutMs: "number",
  mcpStartupTimeoutMs: "number",
  notifyAfterMs: "number",
};
const nestedFields: Record<string, Record<string, "boolean" | "count" | "bytes">> = {
  retry: { maxRetries: "count", baseDelayMs: "count", maxDelayMs: "count" },
  compaction: { enabled: "boolean", reserveTokens: "count", keepRecentTokens: "count" },
  checkpoints: { maxFileBytes: "bytes", maxSnapshotBytes: "bytes", maxRepositoryBytes: "bytes" },
};
/** Nested objects whose every field is known: a typo there would silently keep a default cap. */
const closedObjects = new Set(["checkpoints"]);

/** A broken settings file: a `CliError` ("config_invalid") naming the file and the problem. */
function settingsError(file: string, problem: string): CliError {
  return new CliError("config_invalid", `Broken settings file ${file}: ${problem}`);
}

/**
 * Reads one settings file. Returns `undefined` when it does not exist; throws a `CliError` ("config_invalid")
 * for invalid JSON or a field of the wrong type (never a stack trace for the user).
 */
export async function readSettingsFile(file: string): Promise<Settings | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw settingsError(file, `cannot be read (${(error as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, "")); // editors on Windows write a BOM
  } catch (error) {
    throw settingsError(file, `is not valid JSON (${(error as Error).message}); fix or delete it.`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw settingsError(file, "must contain a JSON object.");
  }
  const problems = checkSettings(parsed as Record<string, unknown>);
  if (problems.length > 0) throw settingsError(file, problems.join(" "));
  return parsed as Settings;
}

/**
 * Every problem of a settings object, one sentence each (empty when it is valid); the check
 * `readSettingsFile` makes, for code that writes settings. Unknown keys are left alone.
 */
export function checkSettings(settings: Record<string, unknown>): string[] {
  // Every problem at once: fixing one only to be told of the next wastes the user's runs.
  const problems: string[] = [];
  for (const [key, value] of Object.entries(settings)) {
    const expected = schema[key as keyof Settings];
    if (!expected) continue;
    if (!matchesType(value, expected)) problems.push(`"${key}" must be ${describeType(expected)}.`);
    else {
      const problem = checkValue(key, value);
      if (problem) problems.push(problem);
    }
  }
  return problems;
}

/**
 * Beyond the type: values a run cannot use (an unknown tool, a negative timeout, a
 * `"enabled": "yes"`) fail here instead of being silently ignored or misread later.
 */
function checkValue(key: string, value: unknown): string | undefined {
  const numberKind = positiveNumbers[key as keyof Settings];
  if (numberKind) {
    const number = value as number;
    const valid = Number.isFinite(number) && number > 0 && (numberKind === "number" || Number.isInteger(number));
    if (!valid) return `"${key}" must be a positive ${numberKind === "integer" ? "whole number" : "number"}.`;
    return key.endsWith("Ms") ? checkTimer(key, number) : undefined;
  }
  if (key === "thinking" && !thinkingLevels.includes(value as string)) {
    return `"thinking" must be one of ${thinkingLevels.join(", ")}.`;
  }
  if (key === "notify" && !notifyChannels.includes(value as NotifyChannel))
    return `"notify" must be one of ${notifyChannels.join(", ")}.`;
  if (key === "mcpSampling" && !["ask", "allow", "deny"].includes(value as string)) {
    return `"mcpSampling" must be one of ask, allow, deny.`;
  }
  if (key === "approval" && !approvalModes.includes(value as string)) {
    return `"approval" must be one of ${approvalModes.join(", ")}.`;
  }
  if (key === "theme" && !/^[A-Za-z0-9_-]{1,64}$/.test(value as string)) {
    return `"theme" must be dark, light or the name of a file in $GYRE_HOME/themes (letters, digits, - and _).`;
  }
  if (key === "tools") {
    const unknown = (value as string[]).filter((tool) => !isBuiltInToolName(tool));
    if (unknown.length > 0)
      return `"tools" has unknown ${unknown.join(", ")}; choose from ${BUILT_IN_TOOL_NAMES.join(", ")}.`;
  }
  if (key === "sandbox") return checkSandboxSettings(value as Record<string, unknown>);
  if (key === "permissions") return checkPermissionSettings(value as Record<string, unknown>);
  const fields = nestedFields[key];
  if (fields) {
    for (const [field, fieldValue] of Object.entries(value as Record<string, unknown>)) {
      const kind = fields[field];
      if (kind === undefined && closedObjects.has(key))
        return `"${key}.${field}" is not a setting; use ${Object.keys(fields).join(", ")}.`;
      if (kind === "bytes" && !(typeof fieldValue === "number" && Number.isSafeInteger(fieldValue) && fieldValue > 0))
        return `"${key}.${field}" must be a whole number of bytes above 0.`;
      if (kind === "boolean" && typeof fieldValue !== "boolean") return `"${key}.${field}" must be true or false.`;
      if (kind === "count" && !(typeof fieldValue === "number" && Number.isFinite(fieldValue) && fieldValue >= 0)) {
        return `"${key}.${field}" must be a number of at least 0.`;
      }
      if (field.endsWith("Ms") && typeof fieldValue === "number" && fieldValue !== 0) {
        const problem = checkTimer(`${key}.${field}`, fieldValue);
        if (problem) return problem;
      }
      if (field === "maxRetries" && typeof fieldValue === "number" && fieldValue > MAX_RETRIES) {
        return `"${key}.${field}" is ${fieldValue}; at most ${MAX_RETRIES} retries are allowed.`;
      }
    }
  }
  return undefined;
}

/** Node's timers hold at most 2^31−1 ms (about 24.8 days); a larger value fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_RETRIES = 100;

function checkTimer(name: string, ms: number): string | undefined {
  if (ms < 1) return `"${name}" is ${ms} ms; a timer needs at least 1 ms.`;
  if (ms > MAX_TIMER_MS)
    return `"${name}" is ${ms} ms, above the ${MAX_TIMER_MS} ms (about 24 days) a timer can wait; use a smaller value.`;
  return undefined;
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
    if (key === "permissions" && existing) {
      // Rule lists add up: a project file can add rules but never drop the user's deny rules.
      const merged: PermissionRules = { ...(existing as PermissionRules) };
      for (const [kind, rules] of Object.entries(value as PermissionRules) as [keyof PermissionRules, string[]][]) {
        merged[kind] = [...(merged[kind] ?? []), ...rules];
      }
      target.permissions = merged;
      continue;
    }
    if (value && typeof value === "object" && !Array.isArray(value) && existing && typeof existing === "object") {
      Object.assign(target, { [key]: { ...(existing as object), ...(value as object) } });
    } else {
      Object.assign(target, { [key]: value });
    }
  }
}

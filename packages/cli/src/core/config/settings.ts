import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { CliError } from "../errors.js";
import type { PermissionRules } from "../permissions/permission-rules.js";
import { checkPermissionRuleSyntax } from "./safety-settings.js";
import { checkSchema, describeFileProblems, type SchemaReport } from "./schema-check.js";
import { type Settings, settingsSchema } from "./settings-schema.js";

export { type NotifyChannel, type Settings, settingsSchema } from "./settings-schema.js";

/** The merged settings, the files they came from, and warnings (unknown keys) to show the user. */
export type LoadedSettings = { settings: Settings; files: string[]; warnings: string[] };

/** A broken settings file: a `CliError` ("config_invalid") naming the file and every problem. */
function settingsError(file: string, problems: readonly string[]): CliError {
  return new CliError("config_invalid", describeFileProblems("Broken settings file", file, problems));
}

/** One settings file read and checked: its settings and its warnings (unknown keys). */
export type SettingsFile = { settings: Settings; warnings: string[] };

/**
 * Reads one settings file. Returns `undefined` when it does not exist; throws a `CliError`
 * ("config_invalid") for invalid JSON or values the schema refuses, naming every problem at once
 * (never a stack trace for the user). Unknown keys are kept and named in `warnings`.
 */
export async function readSettingsFile(file: string): Promise<SettingsFile | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw settingsError(file, [`cannot be read (${(error as Error).message})`]);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, "")); // editors on Windows write a BOM
  } catch (error) {
    throw settingsError(file, [`is not valid JSON (${(error as Error).message}); fix or delete it.`]);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw settingsError(file, ["must contain a JSON object."]);
  }
  const report = await checkSettingsValue(parsed);
  if (report.problems.length > 0) throw settingsError(file, report.problems);
  return { settings: parsed as Settings, warnings: report.unknownKeys.map((key) => unknownKeyWarning(file, key)) };
}

function unknownKeyWarning(file: string, key: string): string {
  return `${file}: ${key} is not a setting gyre knows; it is ignored (a typo?).`;
}

async function checkSettingsValue(settings: unknown): Promise<SchemaReport> {
  const report = await checkSchema(settingsSchema, settings);
  const permissions = (settings as { permissions?: unknown }).permissions;
  // Rule syntax only once the block has the right shape: one sentence per broken place.
  if (!report.problems.some((problem) => problem.startsWith("/permissions"))) {
    report.problems.push(...checkPermissionRuleSyntax(permissions));
  }
  return report;
}

/**
 * Every problem of a settings object, one sentence each (empty when it is valid); the check
 * `readSettingsFile` makes, for code that writes settings. Unknown keys are not problems.
 */
export async function checkSettings(settings: Record<string, unknown>): Promise<string[]> {
  return (await checkSettingsValue(settings)).problems;
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
  const warnings: string[] = [];
  for (const file of files) {
    const next = await readSettingsFile(file);
    if (!next) continue;
    loaded.push(file);
    warnings.push(...next.warnings);
    mergeSettings(settings, next.settings);
  }
  return { settings, files: loaded, warnings };
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

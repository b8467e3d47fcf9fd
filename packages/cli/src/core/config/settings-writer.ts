/**
 * Changes to `$GYRE_HOME/settings.json` from the UI (`/settings`). A change is checked by the
 * same rules as loading (`checkSettings`); a file that would not load is never written, and a
 * file that is already broken is left for the user to fix rather than overwritten.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { checkSettings } from "./settings.js";

export type SettingsChange = {
  /** A top-level key (`theme`) or a dotted key one level deep (`sandbox.mode`). */
  key: string;
  /** The new value; undefined removes the key (back to the default). */
  value: unknown;
};

export type SettingsWriteResult = { ok: true; settings: Record<string, unknown> } | { ok: false; error: string };

/**
 * Applies `changes` to the settings file `file` (created when missing) and writes it atomically,
 * keeping every other key. Resolves `{ ok: false, error }` (one or more sentences) when the file
 * cannot be read or parsed, or when the result breaks a rule; the file is then unchanged.
 */
export async function updateSettingsFile(
  file: string,
  changes: readonly SettingsChange[],
): Promise<SettingsWriteResult> {
  const read = await readSettingsObject(file);
  if (!read.ok) return read;
  const { settings } = read;
  for (const change of changes) applyChange(settings, change);
  const problems = await checkSettings(settings);
  if (problems.length > 0) return { ok: false, error: `Not saved: ${problems.join("; ")}` };
  await mkdir(dirname(file), { recursive: true });
  // Written beside the file and renamed: a crash mid-write never leaves half a settings file.
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(settings, null, 2)}\n`);
  await rename(temporary, file);
  return { ok: true, settings };
}

/**
 * The settings file `file` as a JSON object, `{}` when it does not exist; `{ ok: false, error }`
 * when it cannot be read or is not a JSON object (then nothing should be written over it).
 */
export async function readSettingsObject(file: string): Promise<SettingsWriteResult> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { ok: true, settings: {} };
    return { ok: false, error: `${file} cannot be read (${(error as Error).message}); nothing was written.` };
  }
  try {
    const parsed: unknown = JSON.parse(text.replace(/^\uFEFF/, ""));
    if (isObject(parsed)) return { ok: true, settings: parsed };
  } catch {
    // said below
  }
  return { ok: false, error: `${file} is not a JSON object; fix or delete it first, nothing was written.` };
}

function applyChange(settings: Record<string, unknown>, change: SettingsChange): void {
  const [key, field] = change.key.split(".", 2) as [string, string | undefined];
  if (field === undefined) {
    if (change.value === undefined) delete settings[key];
    else settings[key] = change.value;
    return;
  }
  const block = isObject(settings[key]) ? { ...(settings[key] as Record<string, unknown>) } : {};
  if (change.value === undefined) delete block[field];
  else block[field] = change.value;
  if (Object.keys(block).length === 0) delete settings[key];
  else settings[key] = block;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

import { join } from "node:path";
import { readSettingsFile } from "../config/settings.js";
import { DEFAULT_HOOK_TIMEOUT_SECONDS, HOOK_EVENTS, type HookCommand, type HookEvent } from "./hook-types.js";

/** Hooks read from settings files, and one sentence per entry that was left out. */
export type LoadedHooks = { commands: HookCommand[]; warnings: string[] };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A matcher as Claude Code reads it: empty or `*` matches everything, anything else is a
 * regular expression that must match the whole name (`Edit|Write`, `mcp__github__.*`).
 */
export function compileMatcher(
  matcher: unknown,
): { ok: true; value: RegExp | undefined } | { ok: false; error: string } {
  if (matcher === undefined || matcher === null || matcher === "" || matcher === "*")
    return { ok: true, value: undefined };
  if (typeof matcher !== "string") return { ok: false, error: "matcher must be a string" };
  try {
    return { ok: true, value: new RegExp(`^(?:${matcher})$`) };
  } catch (error) {
    return {
      ok: false,
      error: `matcher ${JSON.stringify(matcher)} is not a valid regular expression (${(error as Error).message})`,
    };
  }
}

/**
 * The commands of one `hooks` object (`{ "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type":
 * "command", "command": "…", "timeout": 60 }] }] }`). Entries it cannot use are left out with a
 * warning naming `source` and the place; they never stop start-up.
 */
export function parseHooks(value: unknown, source: string): LoadedHooks {
  const commands: HookCommand[] = [];
  const warnings: string[] = [];
  if (value === undefined) return { commands, warnings };
  if (!isRecord(value)) return { commands, warnings: [`${source}: hooks must be an object of events; it is ignored.`] };
  for (const [event, groups] of Object.entries(value)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      warnings.push(`${source}: hooks.${event} is not an event gyre knows (${HOOK_EVENTS.join(", ")}); it is ignored.`);
      continue;
    }
    if (!Array.isArray(groups)) {
      warnings.push(`${source}: hooks.${event} must be a list of matcher groups; it is ignored.`);
      continue;
    }
    groups.forEach((group, index) => {
      const where = `${source}: hooks.${event}[${index}]`;
      const parsed = parseGroup(event as HookEvent, group, source);
      if ("error" in parsed) warnings.push(`${where}: ${parsed.error}; it is ignored.`);
      else commands.push(...parsed.commands);
      if ("skipped" in parsed) warnings.push(...parsed.skipped.map((text) => `${where}: ${text}; it is ignored.`));
    });
  }
  return { commands, warnings };
}

function parseGroup(
  event: HookEvent,
  group: unknown,
  source: string,
): { error: string } | { commands: HookCommand[]; skipped: string[] } {
  if (!isRecord(group)) return { error: "a matcher group must be an object with a hooks list" };
  const matcher = compileMatcher(group.matcher);
  if (!matcher.ok) return { error: matcher.error };
  if (!Array.isArray(group.hooks)) return { error: "hooks must be a list of commands" };
  const commands: HookCommand[] = [];
  const skipped: string[] = [];
  for (const entry of group.hooks) {
    if (!isRecord(entry) || typeof entry.command !== "string" || entry.command.trim() === "") {
      skipped.push("an entry without a command string");
      continue;
    }
    if (entry.type !== undefined && entry.type !== "command") {
      skipped.push(`hook type ${JSON.stringify(entry.type)} (gyre runs only "command" hooks)`);
      continue;
    }
    const timeout = entry.timeout;
    const valid = typeof timeout === "number" && Number.isFinite(timeout) && timeout > 0 && timeout <= 86_400;
    if (timeout !== undefined && !valid)
      skipped.push(`timeout ${JSON.stringify(timeout)} (seconds above 0), so the default`);
    commands.push({
      event,
      matcher: matcher.value,
      command: entry.command,
      timeoutSeconds: valid ? timeout : DEFAULT_HOOK_TIMEOUT_SECONDS,
      source,
    });
  }
  return { commands, skipped };
}

/**
 * The hooks of `$GYRE_HOME/settings.json`, then (only when the folder is trusted) of the
 * project's `.gyre/settings.json`: both lists run, the user's first. A broken file throws as
 * settings loading does (it was already read at start-up).
 */
export async function loadHooks(options: { gyreHome: string; cwd: string; trusted: boolean }): Promise<LoadedHooks> {
  const files = [join(options.gyreHome, "settings.json")];
  if (options.trusted) files.push(join(options.cwd, ".gyre", "settings.json"));
  const loaded: LoadedHooks = { commands: [], warnings: [] };
  for (const file of files) {
    const read = await readSettingsFile(file);
    const parsed = parseHooks((read?.settings as { hooks?: unknown } | undefined)?.hooks, file);
    loaded.commands.push(...parsed.commands);
    loaded.warnings.push(...parsed.warnings);
  }
  return loaded;
}

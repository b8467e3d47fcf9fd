/**
 * What "Yes, always" saves (docs/safety.md): the rule a user means — for bash, each command's
 * prefix as the shell parser splits it (`npm test 2>&1 | tail -30` → `bash(npm test:*)`,
 * `bash(tail:*)`) — into `permissions.approved` of the settings file that applies to the folder.
 * Approved rules beat `ask` rules (the user answered that question) and never a `deny` rule.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { splitBashCommand } from "./split-bash-command.js";

/** Words of a command a prefix rule keeps: the program and a subcommand (`git diff`, `npm test`). */
function prefixOf(text: string): string | undefined {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const [program, second] = words;
  if (!program) return undefined;
  // A second word that is a plain word (not a flag, path, quote or expansion) names a subcommand.
  return second && /^[A-Za-z][\w:.-]*$/.test(second) ? `${program} ${second}` : program;
}

/**
 * The rules "Yes, always" offers for a call: one prefix rule per simple command of a bash
 * command (deduplicated, in order), the exact command when the parser cannot see its parts,
 * the file for file tools, the tool name otherwise.
 */
export async function suggestApprovalRules(toolName: string, args: Record<string, unknown>): Promise<string[]> {
  if (toolName === "bash" && typeof args.command === "string") {
    const exact = [`bash(${args.command.replace(/\s+/g, " ").trim()})`];
    const split = await splitBashCommand(args.command).catch(() => undefined);
    if (!split?.ok || split.commands.some((part) => part.opaque || part.privileged)) return exact;
    const prefixes = split.commands.map((part) => prefixOf(part.text));
    if (prefixes.some((prefix) => prefix === undefined)) return exact;
    return [...new Set(prefixes.map((prefix) => `bash(${prefix}:*)`))];
  }
  if (typeof args.path === "string") return [`${toolName}(${args.path})`];
  return [toolName];
}

/**
 * Where approved rules of a folder go: its `.gyre/settings.json` when it is trusted, else the
 * user's `$GYRE_HOME/settings.json` (gyre does not read an untrusted folder's settings).
 */
export function approvalSettingsFile(options: { cwd: string; gyreHome: string; trusted: boolean }): string {
  return options.trusted ? join(options.cwd, ".gyre", "settings.json") : join(options.gyreHome, "settings.json");
}

/**
 * Adds `rules` to `permissions.approved` of `file` (creating it), keeping every other setting.
 * Throws with a sentence when the file is not a JSON object: it is never overwritten then.
 */
export async function saveApprovedRules(file: string, rules: readonly string[]): Promise<void> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "{}";
    throw error;
  });
  let settings: { permissions?: { approved?: string[] } };
  try {
    settings = JSON.parse(text.replace(/^\uFEFF/, "")) as typeof settings;
  } catch {
    throw new Error(`${file} is not valid JSON, so the rule was not saved; fix the file and answer again.`);
  }
  if (!settings || typeof settings !== "object" || Array.isArray(settings))
    throw new Error(`${file} does not hold a JSON object, so the rule was not saved.`);
  const permissions = settings.permissions ?? {};
  const approved = permissions.approved ?? [];
  permissions.approved = [...approved, ...rules.filter((rule) => !approved.includes(rule))];
  settings.permissions = permissions;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(settings, null, 2)}\n`);
}

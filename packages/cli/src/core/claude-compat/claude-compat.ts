/**
 * A Claude Code setup under gyre, opt-in (`claudeCompat: true` or `--claude-compat`;
 * docs/claude-compat.md): `CLAUDE.md` files as context, hooks and permission rules from Claude's
 * settings files, `.claude/commands` as prompt templates, `.claude/agents` as subagents and
 * `.claude/skills` as skills. The project's files count only once the folder is trusted.
 */
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, parse, resolve } from "node:path";
import type { PermissionRules } from "../permissions/permission-rules.js";
import { type ContextFile, readContextFile } from "../system-prompt/context-files.js";
import { importedContextFiles } from "./claude-imports.js";

/** Where a Claude Code setup lives for this run. */
export type ClaudeSetup = {
  /** The user's home folder (`~` of an `@~/…` import). */
  home: string;
  /** `~/.claude/settings.json`, then (trusted) `.claude/settings.json` and `.claude/settings.local.json`. */
  settingsFiles: string[];
  /** `~/.claude/commands`, then (trusted) `.claude/commands`: read with their subfolders. */
  commandDirs: { path: string; claude: "user" | "project" }[];
  agentDirs: string[];
  skillDirs: string[];
  /** `~/.claude/CLAUDE.md`, then (trusted) each folder's `CLAUDE.md` and `.claude/CLAUDE.md` from the root down to cwd. */
  contextCandidates: string[];
};

/** Whether the run reads a Claude Code setup: the flag, else the setting. */
export function isClaudeCompat(flag: boolean | undefined, setting: unknown): boolean {
  return flag === true || setting === true;
}

/** The files and folders of a Claude Code setup for `cwd` (they need not exist). */
export function claudeSetup(options: { cwd: string; env: NodeJS.ProcessEnv; trusted: boolean }): ClaudeSetup {
  const home = options.env.HOME ?? homedir();
  const user = join(home, ".claude");
  const project = join(options.cwd, ".claude");
  const both = (name: string) => [join(user, name), ...(options.trusted ? [join(project, name)] : [])];
  const folders: string[] = [];
  for (let current = resolve(options.cwd); ; current = dirname(current)) {
    folders.unshift(current);
    if (current === parse(current).root) break;
  }
  return {
    home,
    settingsFiles: [
      join(user, "settings.json"),
      ...(options.trusted ? [join(project, "settings.json"), join(project, "settings.local.json")] : []),
    ],
    commandDirs: [
      { path: join(user, "commands"), claude: "user" },
      ...(options.trusted ? [{ path: join(project, "commands"), claude: "project" as const }] : []),
    ],
    agentDirs: both("agents"),
    skillDirs: both("skills"),
    contextCandidates: [
      join(user, "CLAUDE.md"),
      ...(options.trusted ? folders.flatMap((dir) => [join(dir, "CLAUDE.md"), join(dir, ".claude", "CLAUDE.md")]) : []),
    ],
  };
}

/**
 * Context files of the setup not already loaded (gyre reads CLAUDE.md only where no AGENTS.md is),
 * each followed by the files its `@path` imports (claude-imports.ts), loaded or not.
 */
export async function claudeContextFiles(setup: ClaudeSetup, loaded: readonly ContextFile[]): Promise<ContextFile[]> {
  const seen = new Set(loaded.map((file) => resolve(file.path)));
  const found: ContextFile[] = [];
  for (const path of setup.contextCandidates) {
    const already = loaded.find((file) => resolve(file.path) === resolve(path));
    const content = already?.content ?? (seen.has(resolve(path)) ? undefined : await readContextFile(path));
    if (content === undefined) continue;
    const file = { path, content };
    if (!already) found.push(file);
    seen.add(resolve(path));
    found.push(...(await importedContextFiles(file, { home: setup.home, seen })));
  }
  return found;
}

/** Claude Code's tool names in rules, as gyre's tools are named. */
const RULE_TOOLS: Readonly<Record<string, string>> = {
  Bash: "bash",
  BashOutput: "bash_output",
  KillShell: "kill_shell",
  Read: "read",
  Write: "write",
  Edit: "edit",
  MultiEdit: "edit",
  Grep: "grep",
  Glob: "find",
  LS: "ls",
  WebFetch: "web_fetch",
  Task: "task",
  TodoWrite: "todo",
};

/**
 * A Claude Code permission rule as gyre's (`Bash(npm test:*)` → `bash(npm test:*)`,
 * `Read(./src/**)` → `read(src/**)`); undefined for one gyre cannot express
 * (`WebFetch(domain:…)`), so it is left out rather than widened.
 */
export function mapClaudeRule(rule: string): string | undefined {
  const match = /^([A-Za-z_][\w-]*)(?:\((.*)\))?$/s.exec(rule.trim());
  if (!match) return undefined;
  const [, tool = "", pattern] = match;
  const name = gyreToolName(tool);
  if (!name) return undefined;
  if (pattern === undefined || pattern === "") return name;
  if (name === "web_fetch") return undefined;
  const cleaned = name === "bash" ? pattern : pattern.replace(/^\.\//, "");
  return `${name}(${cleaned})`;
}

function wholeTool(rule: string): string | undefined {
  const tool = /^([A-Za-z_][\w-]*)/.exec(rule.trim())?.[1];
  return tool ? gyreToolName(tool) : undefined;
}

/** gyre's name for a tool Claude Code names (`Glob` → `find`); MCP tools keep theirs; undefined when gyre has none. */
export function gyreToolName(claudeName: string): string | undefined {
  return RULE_TOOLS[claudeName] ?? (claudeName.startsWith("mcp__") ? claudeName : undefined);
}

/** What Claude's settings files hold for gyre: their `hooks` objects (by file) and mapped rules. */
export type ClaudeSettings = {
  hooks: { file: string; value: unknown }[];
  permissions: PermissionRules;
  warnings: string[];
};

/** Reads the setup's settings files; a missing file is skipped, a broken one is a warning. */
export async function loadClaudeSettings(setup: ClaudeSetup): Promise<ClaudeSettings> {
  const result: ClaudeSettings = { hooks: [], permissions: {}, warnings: [] };
  for (const file of setup.settingsFiles) {
    const text = await readFile(file, "utf8").catch(() => undefined);
    if (text === undefined) continue;
    let parsed: { hooks?: unknown; permissions?: Record<string, unknown> };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch (error) {
      result.warnings.push(`${file} is not valid JSON (${(error as Error).message}); its hooks and rules are ignored.`);
      continue;
    }
    if (parsed.hooks !== undefined) result.hooks.push({ file, value: parsed.hooks });
    for (const kind of ["allow", "ask", "deny"] as const) {
      const rules = parsed.permissions?.[kind];
      if (!Array.isArray(rules)) continue;
      for (const rule of rules) {
        // A deny or ask rule gyre cannot express covers the whole tool: narrowing it would widen what runs.
        const mapped =
          typeof rule === "string"
            ? (mapClaudeRule(rule) ?? (kind === "allow" ? undefined : wholeTool(rule)))
            : undefined;
        if (mapped) result.permissions[kind] = [...(result.permissions[kind] ?? []), mapped];
        else
          result.warnings.push(
            `${file}: permissions.${kind} rule ${JSON.stringify(rule)} has no gyre equivalent; it is ignored.`,
          );
      }
    }
  }
  return result;
}

/** Everything a Claude Code setup adds to a run, read once at start-up. */
export type LoadedClaudeSetup = ClaudeSettings & { setup: ClaudeSetup; contextFiles: ContextFile[] };

/** Reads the setup of `cwd`: settings files (hooks, rules) and the CLAUDE.md files not yet loaded. */
export async function loadClaudeSetup(options: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  trusted: boolean;
  loadedContextFiles: readonly ContextFile[];
}): Promise<LoadedClaudeSetup> {
  const setup = claudeSetup(options);
  const [settings, contextFiles] = await Promise.all([
    loadClaudeSettings(setup),
    claudeContextFiles(setup, options.loadedContextFiles),
  ]);
  return { ...settings, setup, contextFiles };
}

/** gyre's rules with a Claude setup's added, kind by kind (a deny rule from either holds). */
export function withClaudeRules<T extends PermissionRules>(
  rules: T | undefined,
  claude: LoadedClaudeSetup | undefined,
): T {
  const merged = { ...(rules ?? {}) } as T;
  if (!claude) return merged;
  for (const kind of ["allow", "ask", "deny"] as const) {
    const added = claude.permissions[kind];
    if (added?.length) merged[kind] = [...(merged[kind] ?? []), ...added];
  }
  return merged;
}

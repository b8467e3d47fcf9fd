/**
 * A Claude Code setup under gyre, opt-in (`claudeCompat: true` or `--claude-compat`;
 * docs/claude-compat.md): `CLAUDE.md` files as context, hooks and permission rules from Claude's
 * settings files, `.claude/commands` as prompt templates, `.claude/agents` as subagents and
 * `.claude/skills` as skills. The project's files count only once the folder is trusted.
 */
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, parse, resolve } from "node:path";
import { canonicalPath, type PermissionRules, type RuleKind } from "../permissions/permission-rules.js";
import { type ContextFile, readContextFile } from "../system-prompt/context-files.js";
import { importedContextFiles } from "./claude-imports.js";

/** Where a Claude Code setup lives for this run. */
export type ClaudeSetup = {
  /** The project folder: `/path` in a rule counts from it. */
  projectDir: string;
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
    projectDir: resolve(options.cwd),
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

/** gyre's tools whose rule patterns are paths (Claude's path forms are rewritten for them). */
const PATH_TOOLS: ReadonlySet<string> = new Set(["read", "write", "edit", "grep", "find", "ls"]);

/** Where a rule's paths are anchored: `/path` counts from the project folder (docs/claude-compat.md). */
export type ClaudeRuleContext = { projectDir: string };

/**
 * A Claude Code permission rule as gyre's rules (docs/claude-compat.md#permission-rules): an
 * `Edit` rule covers every tool that changes files (gyre's `edit` and `write`), as Claude's does;
 * Claude matches a path on `Edit` rules only, so a `Write(path)` or `MultiEdit(path)` rule reads
 * as `Edit(path)` when it denies or asks, and gives nothing when it allows. Claude's path forms
 * become gyre's: `//abs` → `/abs`, `~/x` stays, `/x` → the project folder's `x` (absolute),
 * `./x` → `x`. Empty for a rule gyre cannot express (`WebFetch(domain:…)`, a tool gyre lacks):
 * it is left out rather than widened.
 */
export function mapClaudeRule(rule: string, kind: RuleKind, context: ClaudeRuleContext): string[] {
  const match = /^([A-Za-z_][\w-]*)(?:\((.*)\))?$/s.exec(rule.trim());
  if (!match) return [];
  const [, tool = "", pattern] = match;
  const name = gyreToolName(tool);
  if (!name) return [];
  const editing = tool === "Edit" ? ["edit", "write"] : [name];
  if (pattern === undefined || pattern === "") return editing;
  if (name === "web_fetch") return [];
  if (name === "bash") return [`bash(${pattern})`];
  const path = PATH_TOOLS.has(name) ? gyrePathPattern(pattern, context) : pattern;
  if (tool === "Write" || tool === "MultiEdit") return kind === "allow" ? [] : [`edit(${path})`, `write(${path})`];
  return editing.map((each) => `${each}(${path})`);
}

/** Claude's path forms in gyre's rule syntax (docs/safety.md: `/` absolute, `~/` home, else relative to cwd). */
function gyrePathPattern(pattern: string, context: ClaudeRuleContext): string {
  if (pattern.startsWith("//")) return pattern.slice(1);
  if (pattern.startsWith("/")) return join(context.projectDir, pattern.slice(1));
  return pattern.replace(/^\.\//, "");
}

function wholeTool(rule: string): string[] {
  const tool = /^([A-Za-z_][\w-]*)/.exec(rule.trim())?.[1];
  const name = tool ? gyreToolName(tool) : undefined;
  if (!name) return [];
  return tool === "Edit" ? ["edit", "write"] : [name];
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
  // Canonical, as the rules compare canonical paths (docs/safety.md).
  const context = { projectDir: await canonicalPath(setup.projectDir) };
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
        const mapped = typeof rule === "string" ? mapClaudeRule(rule, kind, context) : [];
        if (mapped.length === 0 && typeof rule === "string" && kind !== "allow") mapped.push(...wholeTool(rule));
        if (mapped.length > 0) result.permissions[kind] = [...(result.permissions[kind] ?? []), ...mapped];
        else if (typeof rule === "string" && /^(Write|MultiEdit)\(/.test(rule.trim()))
          result.warnings.push(
            `${file}: permissions.allow rule ${JSON.stringify(rule)} is ignored: Claude Code matches paths on Edit(path) rules only, which cover writes too; write Edit(…) instead.`,
          );
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

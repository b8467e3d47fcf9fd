/**
 * Permission rules (docs/design/safety.md): `tool(pattern)` or a bare tool name, in `allow`, `ask` and `deny`
 * lists. `deny` beats `ask` beats `allow`. A bash rule is matched against each simple command of a
 * compound command, and the command is allowed only if every part is; file rules match the
 * canonical path.
 */
import { realpath } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { createGlobMatcher } from "../tools/glob-match.js";
import { splitBashCommand } from "./split-bash-command.js";

export type PermissionRules = { allow?: string[]; ask?: string[]; deny?: string[] };
export type RuleKind = "allow" | "ask" | "deny";
export type ParsedRule = { source: string; tool: string; pattern: string | undefined };

/** The verdict of the rules on one call; `none` when no rule speaks to it. */
export type RuleVerdict = { decision: RuleKind | "none"; reason: string };

const FILE_TOOLS = new Set(["read", "write", "edit", "ls", "grep", "find"]);

/** Parses one rule; `{ ok: false }` carries a sentence naming what is wrong. */
export function parseRule(source: string): { ok: true; rule: ParsedRule } | { ok: false; error: string } {
  const match = /^([A-Za-z0-9_*.-]+)(?:\((.*)\))?$/s.exec(source.trim());
  if (!match?.[1]) {
    return {
      ok: false,
      error: `"${source}" is not a rule; write tool(pattern) or a tool name, e.g. bash(git diff:*).`,
    };
  }
  const pattern = match[2];
  if (pattern !== undefined && pattern.trim() === "") {
    return { ok: false, error: `"${source}" has an empty pattern; drop the parentheses to match every call.` };
  }
  return { ok: true, rule: { source, tool: match[1], pattern } };
}

/** Parses every rule of a block; throws nothing, returns the problems. */
export function checkRules(rules: PermissionRules): string | undefined {
  for (const kind of ["allow", "ask", "deny"] as const) {
    for (const source of rules[kind] ?? []) {
      const parsed = parseRule(source);
      if (!parsed.ok) return `permissions.${kind}: ${parsed.error}`;
    }
  }
  return undefined;
}

function wildcard(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${escaped}$`, "s");
}

/** Whether a bash pattern matches one simple command's text: exact, `prefix:*`, or a `*` wildcard. */
export function matchesBashPattern(pattern: string, text: string): boolean {
  const normalized = text.trim().replace(/\s+/g, " ");
  if (pattern.endsWith(":*")) {
    const prefix = pattern.slice(0, -2).trim();
    return normalized === prefix || normalized.startsWith(`${prefix} `);
  }
  return pattern.includes("*") ? wildcard(pattern.trim()).test(normalized) : normalized === pattern.trim();
}

/** The canonical form of a path that may not exist yet (nearest existing ancestor resolved). */
export async function canonicalPath(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(await canonicalPath(parent), basename(path));
  }
}

type Compiled = Record<RuleKind, ParsedRule[]>;

/** Rules ready to evaluate calls in workspace `cwd` with home `homeDir`. */
export type RuleSet = {
  readonly hasBashRules: boolean;
  evaluate(toolName: string, args: Record<string, unknown>): Promise<RuleVerdict>;
};

/** Compiles `rules` (invalid ones are skipped: settings validation reports them first). */
export function createRuleSet(rules: PermissionRules, options: { cwd: string; homeDir: string }): RuleSet {
  const compiled: Compiled = { allow: [], ask: [], deny: [] };
  for (const kind of ["allow", "ask", "deny"] as const) {
    for (const source of rules[kind] ?? []) {
      const parsed = parseRule(source);
      if (parsed.ok) compiled[kind].push(parsed.rule);
    }
  }
  const forTool = (kind: RuleKind, tool: string) => compiled[kind].filter((rule) => wildcard(rule.tool).test(tool));
  const hasBashRules = (["allow", "ask", "deny"] as const).some((kind) => forTool(kind, "bash").length > 0);
  return {
    hasBashRules,
    evaluate: async (toolName, args) => {
      if (toolName === "bash" && typeof args.command === "string") {
        return hasBashRules ? evaluateBash(args.command, (kind) => forTool(kind, "bash")) : none;
      }
      const target = FILE_TOOLS.has(toolName) ? await fileTarget(args, options) : undefined;
      for (const kind of ["deny", "ask", "allow"] as const) {
        for (const rule of forTool(kind, toolName)) {
          if (await matchesTarget(rule, target)) return { decision: kind, reason: `the rule ${kind}: ${rule.source}` };
        }
      }
      return none;
    },
  };
}

const none: RuleVerdict = { decision: "none", reason: "no rule matches" };

async function fileTarget(
  args: Record<string, unknown>,
  options: { cwd: string; homeDir: string },
): Promise<FileTarget> {
  const raw = typeof args.path === "string" && args.path !== "" ? args.path : ".";
  const expanded = raw === "~" ? options.homeDir : raw.startsWith("~/") ? join(options.homeDir, raw.slice(2)) : raw;
  const absolute = await canonicalPath(resolve(options.cwd, expanded));
  const cwd = await canonicalPath(options.cwd);
  const inside = absolute === cwd || absolute.startsWith(cwd + sep);
  const home = await canonicalPath(options.homeDir);
  return { absolute, relative: inside ? relative(cwd, absolute) || "." : absolute, home };
}

/** A file call's path, canonical, and the home folder a `~/` pattern counts from. */
type FileTarget = { absolute: string; relative: string; home: string };

async function matchesTarget(rule: ParsedRule, target: FileTarget | undefined): Promise<boolean> {
  if (rule.pattern === undefined || rule.pattern === "*" || rule.pattern === "**") return true;
  if (!target) return false;
  const pattern = rule.pattern;
  if (pattern === "~" || pattern.startsWith("~/"))
    return wildcard(join(target.home, pattern.slice(1))).test(target.absolute);
  if (pattern.startsWith("/") || pattern.startsWith("~")) return wildcard(pattern).test(target.absolute);
  return (await createGlobMatcher(pattern))(target.relative);
}

async function evaluateBash(command: string, rulesOf: (kind: RuleKind) => ParsedRule[]): Promise<RuleVerdict> {
  const split = await splitBashCommand(command);
  if (!split.ok) return { decision: "ask", reason: `the permission rules cannot check this command (${split.reason})` };
  const matching = (kind: RuleKind, texts: string[]) =>
    rulesOf(kind).find(
      (rule) => rule.pattern === undefined || texts.some((text) => matchesBashPattern(rule.pattern as string, text)),
    );
  let allAllowed = split.commands.length > 0;
  let ask: RuleVerdict | undefined;
  for (const part of split.commands) {
    // Deny and ask see the command with and without its wrappers: `sudo rm` is still `rm`.
    const seen = [part.text, part.rawText, ...(part.variants ?? [])];
    const deny = matching("deny", seen);
    if (deny) return { decision: "deny", reason: `\`${part.rawText}\` matches the rule deny: ${deny.source}` };
    const askRule = matching("ask", seen);
    if (askRule) ask ??= { decision: "ask", reason: `\`${part.rawText}\` matches the rule ask: ${askRule.source}` };
    else if (part.opaque)
      ask ??= { decision: "ask", reason: `\`${part.rawText}\` runs code the permission rules cannot see` };
    const allowed = !part.assignments && !part.privileged && matching("allow", [part.text]) !== undefined;
    allAllowed &&= allowed;
  }
  if (ask) return ask;
  if (allAllowed && !split.writesFiles) return { decision: "allow", reason: "every part matches an allow rule" };
  return none;
}

/**
 * `read(...)` deny rules beyond the read tool (docs/safety.md, "Rules"): grep, find and ls leave
 * denied files out of their results, and the sandbox masks them for bash. One predicate over
 * canonical absolute paths, matched the way the read tool's rules are (`permission-rules.ts`).
 */
import { join, relative, sep } from "node:path";
import { createGlobMatcher } from "../tools/glob-match.js";
import { canonicalPath, type PermissionRules, parseRule } from "./permission-rules.js";

/** Whether a canonical absolute path is denied to read. Synchronous: tools call it per result line. */
export type ReadDenyFilter = (absolutePath: string) => boolean;

/** The patterns of the deny rules that name the read tool (`read(.env)`, `read(secrets/**)`). */
export function readDenyPatterns(rules: PermissionRules): string[] {
  const patterns: string[] = [];
  for (const source of rules.deny ?? []) {
    const parsed = parseRule(source);
    if (parsed.ok && parsed.rule.tool === "read" && parsed.rule.pattern !== undefined)
      patterns.push(parsed.rule.pattern);
  }
  return patterns;
}

function wildcard(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${escaped}$`, "s");
}

/**
 * The filter for `patterns` in workspace `cwd`; undefined when there are none. A bare `read`
 * (every file) is not a filter: the gate refuses the read tool, and grep, find and ls have their
 * own rules. Throws nothing for a bad glob: that pattern then denies nothing here (settings
 * validation reports it).
 */
export async function createReadDenyFilter(
  patterns: readonly string[],
  options: { cwd: string; homeDir: string },
): Promise<ReadDenyFilter | undefined> {
  if (patterns.length === 0) return undefined;
  const cwd = await canonicalPath(options.cwd);
  const home = await canonicalPath(options.homeDir);
  const tests: ReadDenyFilter[] = [];
  for (const pattern of patterns) {
    if (pattern === "*" || pattern === "**") continue;
    if (pattern.startsWith("/") || pattern.startsWith("~")) {
      const absolute = pattern.startsWith("~/") ? join(home, pattern.slice(2)) : pattern;
      const regex = wildcard(absolute);
      tests.push((path) => regex.test(path));
      continue;
    }
    const matcher = await createGlobMatcher(pattern).catch(() => undefined);
    if (!matcher) continue;
    tests.push((path) => {
      if (path !== cwd && !path.startsWith(cwd + sep)) return false;
      return matcher(relative(cwd, path) || ".");
    });
  }
  return tests.length === 0 ? undefined : (path) => tests.some((test) => test(path));
}

/**
 * Files the model may not write with the file tools without approval (docs/design/safety.md#protected-paths): what runs code
 * or changes gyre's own behaviour later (.git/, .gyre/, $GYRE_HOME, shell rc files, .mcp.json,
 * ~/.ssh). Checked on the canonical path, so a symlink or a missing parent does not help.
 */
import { join, resolve, sep } from "node:path";
import { canonicalPath } from "./permission-rules.js";

const HOME_FILES = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".zlogin",
  ".gitconfig",
  ".config/git",
  ".ssh",
  ".mcp.json",
];

export type ProtectedFileOptions = { cwd: string; homeDir: string; gyreHome: string; extra: readonly string[] };

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Why writing `path` needs approval, or undefined when it is an ordinary file. */
export async function describeProtectedFile(path: string, options: ProtectedFileOptions): Promise<string | undefined> {
  const expand = (item: string) =>
    item.startsWith("~/") ? join(options.homeDir, item.slice(2)) : resolve(options.cwd, item);
  const target = await canonicalPath(expand(path));
  const cwd = await canonicalPath(options.cwd);
  const roots: Array<[string, string]> = [
    [join(cwd, ".git"), "git runs hooks and config from it"],
    [join(cwd, ".gyre"), "gyre loads settings and extensions from it"],
    [join(cwd, ".mcp.json"), "it starts MCP servers"],
    [options.gyreHome, "gyre loads settings, extensions and trust from it"],
    ...HOME_FILES.map((name): [string, string] => [join(options.homeDir, name), "shells and tools run or trust it"]),
    ...options.extra.map((item): [string, string] => [expand(item), "it is in sandbox.protectedPaths"]),
  ];
  for (const [root, why] of roots) {
    const canonicalRoot = await canonicalPath(root);
    if (isInside(target, canonicalRoot)) return `${target} is a protected path (${why})`;
  }
  // A .git or .gyre folder of any nested project is just as dangerous.
  if (/(^|\/)\.(git|gyre)(\/|$)/.test(target)) return `${target} is inside a .git or .gyre folder`;
  return undefined;
}

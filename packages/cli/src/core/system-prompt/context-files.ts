import { readFile } from "node:fs/promises";
import { dirname, join, parse, resolve } from "node:path";

export type ContextFile = { path: string; content: string };

const names = ["AGENTS.md", "CLAUDE.md"];

async function readFirst(dir: string): Promise<ContextFile | undefined> {
  for (const name of names) {
    const path = join(dir, name);
    try {
      return { path, content: await readFile(path, "utf8") };
    } catch {
      // try the next name
    }
  }
  return undefined;
}

/**
 * The context files the model gets, in order: `$GYRE_HOME/AGENTS.md` (or `CLAUDE.md`), then one
 * per directory from the filesystem root down to `cwd` (AGENTS.md preferred over CLAUDE.md in
 * the same folder). Reads at most one small file per directory; never scans.
 */
export async function loadContextFiles(options: { cwd: string; gyreHome: string }): Promise<ContextFile[]> {
  const dirs: string[] = [];
  let current = resolve(options.cwd);
  const { root } = parse(current);
  while (true) {
    dirs.unshift(current);
    if (current === root) break;
    current = dirname(current);
  }
  const found = await Promise.all([readFirst(options.gyreHome), ...dirs.map(readFirst)]);
  const seen = new Set<string>();
  return found.filter((file): file is ContextFile => {
    if (!file || seen.has(file.path)) return false;
    seen.add(file.path);
    return true;
  });
}

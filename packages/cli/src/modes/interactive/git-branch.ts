import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * The checked-out branch of the repository holding `cwd` (a short commit id when detached), or
 * undefined outside a repository. Reads `.git/HEAD` directly: no git process on the render path.
 */
export function readGitBranch(cwd: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const gitDir = findGitDir(join(dir, ".git"));
    if (gitDir) return branchFromHead(gitDir);
    if (dirname(dir) === dir) return undefined;
  }
}

/** `.git` is a folder, or (worktrees, submodules) a file naming the folder. */
function findGitDir(path: string): string | undefined {
  try {
    if (statSync(path).isDirectory()) return path;
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(path, "utf8"));
    return pointer?.[1] ? resolve(dirname(path), pointer[1].trim()) : undefined;
  } catch {
    return undefined;
  }
}

function branchFromHead(gitDir: string): string | undefined {
  try {
    const head = readFileSync(join(gitDir, "HEAD"), "utf8").trim();
    const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
    if (ref?.[1]) return ref[1];
    return /^[0-9a-f]{7,}$/.test(head) ? head.slice(0, 8) : undefined;
  } catch {
    return undefined;
  }
}

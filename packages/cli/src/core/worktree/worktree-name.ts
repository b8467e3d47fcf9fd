/**
 * What may name a worktree of `gyre -w` (docs/worktrees.md): the name is a folder and the last
 * part of the branch `gyre/<name>`, so it must be both a plain file name and a part git accepts in
 * a branch name.
 */

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Undefined for a good name; otherwise what a name must be, as a clause for the caller's sentence. */
export function worktreeNameRule(name: string): string | undefined {
  if (!NAME.test(name)) return `use letters, digits, ".", "_" or "-", at most 64, starting with a letter or digit`;
  // git's own rules for a part of a branch name (git check-ref-format).
  if (name.includes("..") || name.endsWith(".") || name.endsWith(".lock"))
    return `git refuses ".." in a branch name, and a name ending in "." or ".lock"`;
  return undefined;
}

/** Undefined for a good name; otherwise one sentence saying what is wrong with it. */
export function worktreeNameProblem(name: string): string | undefined {
  const rule = worktreeNameRule(name);
  return rule ? `${JSON.stringify(name)} cannot name a worktree: ${rule}.` : undefined;
}

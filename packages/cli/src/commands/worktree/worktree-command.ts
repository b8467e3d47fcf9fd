/**
 * `gyre worktree list` and `gyre worktree remove <name> [--force]`: the worktrees `gyre -w` made
 * for this repository (docs/worktrees.md). Exit 0 when done, 1 when git refused, 2 for bad usage.
 */
import { listWorktrees, removeWorktree } from "../../core/worktree/worktrees.js";
import type { CommandIo } from "../index.js";
import { parseCommandWords } from "../usage-error.js";

export const worktreeUsage = `Usage:
  gyre worktree list
  gyre worktree remove <name> [--force]

gyre -w [name] (or --worktree [name]) starts a session in a new git worktree of this repository, on
branch gyre/<name> from HEAD; it is kept after the session for review. list shows them with their
branch and folder; remove deletes the folder (git refuses one with uncommitted changes unless
--force) and keeps the branch with its commits.
`;

export async function runWorktreeCommand(words: string[], io: CommandIo): Promise<number> {
  const parsed = parseCommandWords("worktree", words, { force: { type: "boolean" }, help: { type: "boolean" } });
  if (!parsed.ok) {
    io.stderr.write(`gyre: ${parsed.error}\n`);
    return 2;
  }
  const [verb, name, ...rest] = parsed.value.positionals;
  if (parsed.value.values.help) {
    io.stdout.write(worktreeUsage);
    return 0;
  }
  const where = { cwd: io.cwd, gyreHome: io.gyreHome, env: io.env };
  try {
    if (verb === "list" && name === undefined) {
      const worktrees = await listWorktrees(where);
      if (worktrees.length === 0) io.stdout.write("No gyre worktrees in this repository; gyre -w makes one.\n");
      for (const worktree of worktrees) io.stdout.write(`${worktree.name}\t${worktree.branch}\t${worktree.path}\n`);
      return 0;
    }
    if (verb === "remove" && name !== undefined && rest.length === 0) {
      const removed = await removeWorktree({ ...where, name, force: parsed.value.values.force === true });
      for (const message of removed.messages) io.stderr.write(`gyre: ${message}\n`);
      io.stdout.write(
        `Removed ${removed.path}; branch ${removed.branch} is kept (git branch -D ${removed.branch} deletes it).\n`,
      );
      return 0;
    }
  } catch (error) {
    io.stderr.write(`gyre: ${(error as Error).message}\n`);
    return 1;
  }
  io.stderr.write("gyre: gyre worktree takes list, or remove <name>; see gyre worktree --help.\n");
  return 2;
}

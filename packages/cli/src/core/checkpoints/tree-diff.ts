/**
 * Differences between two snapshot trees, read from `git diff-tree --raw -z`. Renames are a
 * deletion plus an addition: restoring needs nothing more, and it keeps the summary honest.
 */
import { type GitLocation, runGit, splitNul } from "./run-git.js";
import type { FileChange, SkippedFile } from "./types.js";

/** One path that differs; `mode` and `blob` describe the `to` side (absent when `to` lacks the path). */
export type TreeDifference = FileChange & { mode?: string; blob?: string };

const ZERO_MODE = "000000";

/** How `to` differs from `from`: `added` means only `to` has the path. */
export async function diffTrees(location: GitLocation, from: string, to: string): Promise<TreeDifference[]> {
  if (from === to) return [];
  const output = await runGit(location, ["diff-tree", "-r", "-z", "--no-renames", "--raw", from, to]);
  const records = splitNul(output.stdout);
  const differences: TreeDifference[] = [];
  for (let index = 0; index + 1 < records.length; index += 2) {
    const [oldMode, newMode, , newBlob] = (records[index] as string).slice(1).split(" ");
    const path = records[index + 1] as string;
    if (newMode === ZERO_MODE) differences.push({ path, status: "deleted" });
    else if (oldMode === ZERO_MODE) differences.push({ path, status: "added", mode: newMode, blob: newBlob });
    else differences.push({ path, status: "modified", mode: newMode, blob: newBlob });
  }
  return differences;
}

/** The differences a restore may act on: paths skipped on either side are not covered. */
export function coveredDifferences(
  differences: readonly TreeDifference[],
  skipped: readonly (readonly SkippedFile[])[],
): { covered: TreeDifference[]; uncovered: string[] } {
  const prefixes = skipped.flat().map((file) => file.path);
  const isUncovered = (path: string) =>
    prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`) || prefix.startsWith(`${path}/`));
  const covered: TreeDifference[] = [];
  const uncovered: string[] = [];
  for (const difference of differences)
    if (isUncovered(difference.path)) uncovered.push(difference.path);
    else covered.push(difference);
  return { covered, uncovered };
}

/** Counts for a one-line summary ("3 modified, 1 added, 2 deleted"). */
export function summariseChanges(changes: readonly FileChange[]): string {
  const count = (status: FileChange["status"]) => changes.filter((change) => change.status === status).length;
  const parts = (["modified", "added", "deleted"] as const)
    .map((status) => [count(status), status] as const)
    .filter(([n]) => n > 0)
    .map(([n, status]) => `${n} ${status}`);
  return parts.length === 0 ? "no file changes" : parts.join(", ");
}

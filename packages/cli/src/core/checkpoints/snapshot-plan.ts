/**
 * What one snapshot records: the listing of what differs from the shadow index, and the sorting
 * of those paths into what is recorded and what is skipped (the size limits of types.ts).
 */
import { lstat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type GitLocation, runGit, splitNul } from "./run-git.js";
import type { CheckpointLimits, SkippedFile } from "./types.js";

/**
 * `ls-files -t`-style records (`? path` untracked, `C path` changed, `R path` removed) of what
 * differs from the index: all of the work tree, or just `paths`. Tracked changes (`diff-files`,
 * which stats in parallel) and untracked files (`ls-files -o`) are listed by two git processes
 * at once; both only read the index.
 */
export async function listChanged(location: GitLocation, paths: readonly string[] | undefined): Promise<string[]> {
  // `:(literal)` so a path with glob characters names only itself.
  const pathspec = paths === undefined ? [] : ["--", ...paths.map((path) => `:(literal)${path}`)];
  const [tracked, untracked] = await Promise.all([
    runGit(location, ["diff-files", "--name-status", "-z", ...pathspec]),
    runGit(location, ["ls-files", "-z", "-o", "--exclude-standard", ...pathspec]),
  ]);
  const records: string[] = [];
  const fields = splitNul(tracked.stdout);
  for (let index = 0; index + 1 < fields.length; index += 2)
    records.push(`${fields[index] === "D" ? "R" : "C"} ${fields[index + 1]}`);
  for (const path of splitNul(untracked.stdout)) records.push(`? ${path}`);
  return expandNestedRepositories(location, records);
}

const MAX_NESTING = 8;

/**
 * Git lists a nested repository it has no entry under as one `dir/` record and never looks
 * inside. Its files are listed here, as plain untracked files (its own .gitignore applies, its
 * `.git` is left out), so the snapshot covers them; once any is in the index, git descends into
 * the directory by itself on later snapshots.
 */
async function expandNestedRepositories(location: GitLocation, records: string[], depth = 0): Promise<string[]> {
  const expanded: string[] = [];
  for (const record of records) {
    const path = record.slice(2);
    if (!path.endsWith("/") || depth >= MAX_NESTING) {
      expanded.push(record);
      continue;
    }
    const nested: GitLocation = {
      ...location,
      workTree: join(location.workTree, path),
      // Never written: with an empty index every file of the nested repository is untracked.
      indexFile: join(location.gitDir, "nested-listing-index"),
    };
    const listed = await runGit(nested, ["ls-files", "-z", "-t", "-o", "--exclude-standard"]).catch(() => undefined);
    if (listed === undefined) {
      expanded.push(record);
      continue;
    }
    const inner = splitNul(listed.stdout).map((entry) => `${entry.slice(0, 2)}${path}${entry.slice(2)}`);
    expanded.push(...(await expandNestedRepositories(location, inner, depth + 1)));
  }
  return expanded;
}

export type UpdatePlan = { update: string[]; dropTracked: string[]; skipped: SkippedFile[] };

/**
 * Sorts listed records into paths to record and paths to skip. A skipped path that was tracked
 * leaves the index, so the tree never carries a stale version of it.
 */
export async function planUpdate(workTree: string, records: string[], limits: CheckpointLimits): Promise<UpdatePlan> {
  const paths = new Map<string, boolean>();
  for (const record of records) {
    const path = record.slice(2);
    paths.set(path, (paths.get(path) ?? false) || record[0] !== "?");
  }
  const skipped: SkippedFile[] = [];
  const sized: { path: string; bytes: number; tracked: boolean }[] = [];
  const update: string[] = [];
  await Promise.all(
    [...paths].map(async ([path, tracked]) => {
      if (path.endsWith("/")) return skipped.push({ path: path.slice(0, -1), bytes: 0, reason: "nested_repository" });
      const info = await lstat(join(workTree, path)).catch(() => undefined);
      if (info === undefined) return update.push(path);
      if (info.isFile() && info.size > limits.maxFileBytes) {
        skipped.push({ path, bytes: info.size, reason: "file_too_large" });
        if (tracked) sized.push({ path, bytes: -1, tracked });
        return;
      }
      sized.push({ path, bytes: info.isFile() ? info.size : 0, tracked });
    }),
  );
  const dropTracked = sized.filter((entry) => entry.bytes < 0).map((entry) => entry.path);
  const kept = capSnapshot(
    sized.filter((entry) => entry.bytes >= 0),
    limits,
    skipped,
  );
  for (const entry of kept.over) if (entry.tracked) dropTracked.push(entry.path);
  update.push(...kept.within.map((entry) => entry.path));
  skipped.sort((a, b) => a.path.localeCompare(b.path));
  return { update: update.sort(), dropTracked, skipped };
}

/** Smallest first, the files that fit in one snapshot; the others are added to `skipped`. */
function capSnapshot<T extends { path: string; bytes: number }>(
  sized: T[],
  limits: CheckpointLimits,
  skipped: SkippedFile[],
): { within: T[]; over: T[] } {
  const within: T[] = [];
  const over: T[] = [];
  let total = 0;
  for (const entry of [...sized].sort((a, b) => a.bytes - b.bytes)) {
    total += entry.bytes;
    if (total <= limits.maxSnapshotBytes) within.push(entry);
    else {
      over.push(entry);
      skipped.push({ path: entry.path, bytes: entry.bytes, reason: "snapshot_too_large" });
    }
  }
  return { within, over };
}

/** The plan for named paths that `git add` can record directly: those to add, those to drop. */
export type NamedPlan = { add: string[]; drop: string[]; skipped: SkippedFile[] };

/**
 * The quick plan for the files a write or edit named: every one an existing file or symlink,
 * none inside a nested repository. Undefined when any is not (missing, a directory, under a
 * nested `.git`): those take the general route, which lists what git sees first.
 */
export async function planNamed(
  workTree: string,
  paths: readonly string[],
  limits: CheckpointLimits,
): Promise<NamedPlan | undefined> {
  const sized: { path: string; bytes: number }[] = [];
  const skipped: SkippedFile[] = [];
  const drop: string[] = [];
  for (const path of new Set(paths)) {
    if (path === "" || path.startsWith("/") || path.split("/").includes("..")) return undefined;
    if ((await nestedRepositoryRoot(workTree, path)) !== undefined) return undefined;
    const info = await lstat(join(workTree, path)).catch(() => undefined);
    if (info === undefined || !(info.isFile() || info.isSymbolicLink())) return undefined;
    if (info.isFile() && info.size > limits.maxFileBytes) {
      skipped.push({ path, bytes: info.size, reason: "file_too_large" });
      drop.push(path);
    } else sized.push({ path, bytes: info.isFile() ? info.size : 0 });
  }
  const { within, over } = capSnapshot(sized, limits, skipped);
  drop.push(...over.map((entry) => entry.path));
  skipped.sort((a, b) => a.path.localeCompare(b.path));
  return { add: within.map((entry) => entry.path).sort(), drop, skipped };
}

/**
 * The outermost folder between the work tree and `path` that holds a `.git` of its own (a nested
 * repository, which git lists as one record and never looks into for a path inside it).
 */
export async function nestedRepositoryRoot(workTree: string, path: string): Promise<string | undefined> {
  let root: string | undefined;
  for (let folder = dirname(path); folder !== "." && folder !== "/"; folder = dirname(folder)) {
    const found = await lstat(join(workTree, folder, ".git")).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code !== "ENOENT" && error.code !== "ENOTDIR",
    );
    if (found) root = folder;
  }
  return root;
}

/**
 * The pathspec that lets git see `paths`: a path inside a nested repository is looked at through
 * that repository's folder, whose files expandNestedRepositories then lists.
 */
export async function visiblePaths(workTree: string, paths: readonly string[]): Promise<string[]> {
  const visible = await Promise.all(paths.map(async (path) => (await nestedRepositoryRoot(workTree, path)) ?? path));
  return [...new Set(visible)];
}

/** The skipped paths of an earlier snapshot that `paths` did not look at again, plus `fresh`. */
export function carryOver(
  earlier: readonly SkippedFile[],
  paths: readonly string[],
  fresh: SkippedFile[],
): SkippedFile[] {
  const looked = new Set(paths);
  const kept = earlier.filter(
    (file) => !looked.has(file.path) && ![...looked].some((path) => file.path.startsWith(`${path}/`)),
  );
  return [...kept, ...fresh].sort((a, b) => a.path.localeCompare(b.path));
}

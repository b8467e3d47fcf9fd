/**
 * Writes snapshot content back into the work tree byte for byte: regular files (exec bit from
 * the tree, other permission bits kept), symlinks, and removal of paths the snapshot lacks. Each
 * file is replaced by rename, so a crash leaves the old or the new file, never half of one.
 */
import { randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, readdir, rename, rm, rmdir, symlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type GitLocation, runGit } from "./run-git.js";
import type { TreeDifference } from "./tree-diff.js";

const SYMLINK_MODE = "120000";
const EXECUTABLE_MODE = "100755";

/** Applies `changes` (from `diffTrees(current, target)`) so the work tree matches the target. */
export async function restoreChanges(location: GitLocation, changes: readonly TreeDifference[]): Promise<void> {
  const removals = changes.filter((change) => change.status === "deleted");
  const writes = changes.filter((change) => change.status !== "deleted" && change.blob && change.mode !== "160000");
  // Deepest first, so a directory's files go before the directory that may replace it.
  for (const change of [...removals].sort((a, b) => b.path.length - a.path.length)) {
    await rm(join(location.workTree, change.path), { force: true });
    await removeEmptyParents(location.workTree, dirname(change.path));
  }
  const contents = await readBlobs(
    location,
    writes.map((change) => change.blob as string),
  );
  for (const change of writes) {
    const content = contents.get(change.blob as string);
    if (content === undefined)
      throw new Error(`The checkpoint lacks the content of ${change.path}; it may have been pruned.`);
    await writeEntry(join(location.workTree, change.path), change.mode as string, content);
  }
}

async function removeEmptyParents(workTree: string, relative: string): Promise<void> {
  let current = relative;
  while (current !== "." && current !== "" && current !== "/") {
    const path = join(workTree, current);
    const entries = await readdir(path).catch(() => undefined);
    if (entries === undefined || entries.length > 0) return;
    await rmdir(path).catch(() => {});
    current = dirname(current);
  }
}

async function writeEntry(path: string, mode: string, content: Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const existing = await lstat(path).catch(() => undefined);
  if (existing?.isDirectory()) await rm(path, { recursive: true });
  if (mode === SYMLINK_MODE) {
    if (existing && !existing.isDirectory()) await rm(path, { force: true });
    await symlink(content.toString("utf8"), path);
    return;
  }
  const executable = mode === EXECUTABLE_MODE;
  const kept = existing?.isFile() && Boolean(existing.mode & 0o100) === executable ? existing.mode & 0o7777 : undefined;
  const temporary = join(dirname(path), `.${basename(path)}.gyre-restore-${randomBytes(4).toString("hex")}`);
  try {
    await writeFile(temporary, content);
    await chmod(temporary, kept ?? (executable ? 0o755 : 0o644));
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Reads blobs through one `git cat-file --batch`. */
async function readBlobs(location: GitLocation, ids: readonly string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(ids)];
  const blobs = new Map<string, Buffer>();
  if (unique.length === 0) return blobs;
  const output = (await runGit(location, ["cat-file", "--batch"], { input: `${unique.join("\n")}\n` })).stdout;
  let at = 0;
  while (at < output.length) {
    const headerEnd = output.indexOf(0x0a, at);
    if (headerEnd < 0) break;
    const [id, type, size] = output.toString("utf8", at, headerEnd).split(" ");
    if (type === "missing" || size === undefined) {
      at = headerEnd + 1;
      continue;
    }
    const start = headerEnd + 1;
    const end = start + Number(size);
    blobs.set(id as string, output.subarray(start, end));
    at = end + 1;
  }
  return blobs;
}

/**
 * A bounded walk of directory trees for the sandbox's searches (a planted `.git`, files denied to
 * read). Symlinks are never followed and `.git` folders are never entered.
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";

/** At most this many directories are read per walk, so a huge tree cannot stall every command. */
export const WALK_DIRECTORY_LIMIT = 200_000;

/** Folders listed at once. */
const BATCH = 32;

/**
 * Calls `visit` for every entry under `roots`; descends into a directory only when `visit`
 * returns true for it. Resolves to false when the directory limit cut the walk short.
 */
export async function walkTree(
  roots: readonly string[],
  visit: (path: string, entry: Dirent) => boolean,
  limit: number = WALK_DIRECTORY_LIMIT,
): Promise<boolean> {
  const queue = [...roots];
  let read = 0;
  while (queue.length > 0) {
    if (read >= limit) return false;
    // Several folders at once: readdir runs on libuv's thread pool, so a big tree takes a fraction of the time.
    const batch = queue.splice(Math.max(0, queue.length - BATCH), BATCH);
    read += batch.length;
    const listed = await Promise.all(batch.map((dir) => readdir(dir, { withFileTypes: true }).catch(() => [])));
    for (const [index, entries] of listed.entries()) {
      const dir = batch[index] as string;
      for (const entry of entries) {
        const path = join(dir, entry.name);
        if (visit(path, entry) && entry.isDirectory() && entry.name !== ".git") queue.push(path);
      }
    }
  }
  return true;
}

import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";

const extensionPattern = /\.(ts|mts|js|mjs)$/;
const indexNames = ["index.ts", "index.mts", "index.js", "index.mjs"];

/**
 * The extensions in a folder, sorted by name: each `*.ts`, `*.mts`, `*.js` or `*.mjs` file at
 * its top level, and each subfolder's `index.*` (for extensions with helper files). Type
 * declarations (`*.d.ts`) are skipped. A missing folder has none.
 */
export async function findExtensionFiles(dir: string): Promise<string[]> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isFile() && extensionPattern.test(entry.name) && !/\.d\.m?ts$/.test(entry.name)) found.push(path);
    if (entry.isDirectory()) {
      const inner = await readdir(path).catch(() => [] as string[]);
      const index = indexNames.find((name) => inner.includes(name));
      if (index) found.push(join(path, index));
    }
  }
  return found;
}

/**
 * A hash of every regular file under `dir` (relative paths and contents; node_modules skipped;
 * a symlink counts as its target), so trust given to a project is asked again when its files
 * change. A file over 4 MiB counts by its size and mtime, so no file is read unbounded. The same
 * hash for an empty or missing folder.
 */
export async function fingerprintExtensionFiles(dir: string): Promise<string> {
  const hash = createHash("sha256");
  for (const path of await listFilesRecursively(dir)) {
    hash.update(relative(dir, path));
    hash.update("\0");
    hash.update(await boundedContent(path));
    hash.update("\0");
  }
  return hash.digest("hex");
}

const MAX_HASHED_BYTES = 4 * 1024 * 1024;

async function boundedContent(path: string): Promise<Buffer | string> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return "not a file";
    if (info.size > MAX_HASHED_BYTES) return `size ${info.size} mtime ${info.mtimeMs}`;
    return await readFile(path);
  } catch {
    return Buffer.alloc(0);
  }
}

async function listFilesRecursively(dir: string, depth = 0): Promise<string[]> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    // Depth-bounded: a symlink loop must not recurse for ever.
    if (entry.isDirectory() && depth < 16) files.push(...(await listFilesRecursively(path, depth + 1)));
    else if (entry.isFile() || entry.isSymbolicLink()) files.push(path);
  }
  return files;
}

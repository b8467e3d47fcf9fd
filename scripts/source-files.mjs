// The repository's own source files (TypeScript and JavaScript under packages/*/src,
// packages/*/test, scripts and bench), for the checks and scripts that read them all.
import { readdir } from "node:fs/promises";
import { join } from "node:path";

const skipped = new Set(["node_modules", "dist", ".cache", "results", "fixtures"]);

/** Whether the source walk leaves a folder out: builds, caches, results, fixtures and test temp folders. */
const skipsFolder = (name) => skipped.has(name) || name.startsWith(".gyre-test-");

/** The TypeScript and JavaScript files under `dir`, depth first; folders `skip(name)` names are left out. */
export async function* walkSourceFiles(dir, skip = skipsFolder) {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skip(entry.name)) yield* walkSourceFiles(path, skip);
    } else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) yield path;
  }
}

/** Absolute paths of the source files under `root`, in a stable order. */
export async function sourceFiles(root) {
  const files = [];
  const packages = await readdir(join(root, "packages"));
  const dirs = [
    ...packages.flatMap((name) => ["src", "test"].map((sub) => join(root, "packages", name, sub))),
    join(root, "scripts"),
    join(root, "bench"),
  ];
  for (const dir of dirs) for await (const file of walkSourceFiles(dir)) files.push(file);
  return files.sort();
}

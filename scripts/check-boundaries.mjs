// Fails when an import crosses a package boundary against the arrows cli → agent → ai,
// or when packages/cli/src/core imports UI code (modes/ or a TUI library).
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const forbidden = {
  ai: [/^@gyre\/agent/, /^gyre(\/|$)/, /packages\/(agent|cli)\//],
  agent: [/^gyre(\/|$)/, /packages\/cli\//],
  cli: [],
};
const coreForbidden = [/\/modes\//, /^@mariozechner\/pi-tui/, /^ink$/, /^react$/];
const importPattern = /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

async function* walk(dir) {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "dist") yield* walk(path);
    } else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) yield path;
  }
}

const problems = [];
for (const [pkg, rules] of Object.entries(forbidden)) {
  for (const folder of ["src", "test"]) {
    for await (const file of walk(join(root, "packages", pkg, folder))) {
      const text = await readFile(file, "utf8");
      const isCore = file.includes(join("packages", "cli", "src", "core"));
      for (const match of text.matchAll(importPattern)) {
        const specifier = match[1] ?? match[2];
        const rel = relative(root, file);
        if (rules.some((rule) => rule.test(specifier)))
          problems.push(`${rel}: imports "${specifier}" (${pkg} may not depend on it)`);
        if (isCore && coreForbidden.some((rule) => rule.test(specifier)))
          problems.push(`${rel}: core/ imports UI code "${specifier}"`);
      }
    }
  }
}
if (problems.length > 0) {
  console.error(
    `Dependency-direction check failed (cli → agent → ai; core/ never imports UI):\n${problems.join("\n")}`,
  );
  process.exit(1);
}
console.log("boundaries ok");

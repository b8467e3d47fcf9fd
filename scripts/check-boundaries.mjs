// Fails when an import crosses a package boundary against the arrows cli → agent → ai,
// when packages/cli/src/core imports UI code (modes/ or a TUI library) or the CLI's own
// front end (args, main, help text), and when modes/ go around AgentSession (the session
// manager, or a value import of @gyre/agent such as its Agent; type imports are fine).
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const forbidden = {
  ai: [/^@gyre\/agent/, /^gyre(\/|$)/, /packages\/(agent|cli)\//],
  agent: [/^gyre(\/|$)/, /packages\/cli\//],
  cli: [],
};
const coreForbidden = [/\/modes\//, /^@mariozechner\/pi-tui/, /^ink$/, /^react$/, /\.\.\/(args|main|help-text)\.js$/];
const modesForbidden = [/core\/session\/session-manager(\.js)?$/];
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
      const isModes = file.includes(join("packages", "cli", "src", "modes"));
      for (const match of text.matchAll(importPattern)) {
        const specifier = match[1] ?? match[2];
        const rel = relative(root, file);
        if (rules.some((rule) => rule.test(specifier)))
          problems.push(`${rel}: imports "${specifier}" (${pkg} may not depend on it)`);
        if (isCore && coreForbidden.some((rule) => rule.test(specifier)))
          problems.push(`${rel}: core/ imports UI or CLI front-end code "${specifier}"`);
        if (isModes && modesForbidden.some((rule) => rule.test(specifier)))
          problems.push(`${rel}: modes/ imports "${specifier}"; go through AgentSession instead`);
        if (isModes && specifier === "@gyre/agent" && !/^import\s+type\s/.test(match[0]))
          problems.push(`${rel}: modes/ imports values from "@gyre/agent"; use \`import type\` and drive AgentSession`);
      }
    }
  }
}
if (problems.length > 0) {
  console.error(
    `Dependency-direction check failed (cli → agent → ai; core/ never imports UI or args; modes/ use AgentSession):\n${problems.join("\n")}`,
  );
  process.exit(1);
}
console.log("boundaries ok");

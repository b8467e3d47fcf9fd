// Fails when an import crosses a package boundary against the arrows cli → agent → ai,
// when packages/cli/src/core imports UI code (modes/ or a TUI library) or the CLI's own
// front end (args, main, help text), and when modes/ go around AgentSession: the session
// manager, a value import of @gyre/agent such as its Agent (type imports are fine), or the
// parts the session owns (the runtime bag, safety, checkpoints, MCP manager, extension runner,
// todo store), imported or reached as `x.safety`, `x.checkpoints`, … (docs/design/session.md).
import { readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { walkSourceFiles } from "./source-files.mjs";

/** Every file is checked, test fixtures included: only installed and built folders are left out. */
const builds = (name) => name === "node_modules" || name === "dist";

const root = new URL("..", import.meta.url).pathname;
const forbidden = {
  ai: [/^@gyre\/(agent|fleet)/, /^gyre(\/|$)/, /packages\/(agent|cli|fleet)\//],
  agent: [/^@gyre\/fleet/, /^gyre(\/|$)/, /packages\/(cli|fleet)\//],
  // gyre loads the fleet package by name at run time (commands/load-fleet.ts), never its files.
  cli: [/packages\/fleet\/|\.\.\/fleet\/src\//],
  // The fleet reaches gyre only through the entry made for it, never gyre's files or main entry.
  fleet: [/^gyre$/, /^gyre\/(?!fleet-support$)/, /\.\.\/(core|commands|modes|report)\//],
};
const coreForbidden = [/\/modes\//, /^@mariozechner\/pi-tui/, /^ink$/, /^react$/, /\.\.\/(args|main|help-text)\.js$/];
const modesForbidden = [
  /core\/session\/session-manager(\.js)?$/,
  /core\/create-runtime(\.js)?$/,
  /core\/load-runtime-base(\.js)?$/,
  /core\/runtime-types(\.js)?$/,
  /core\/(agent-session-ops|agent-session-run|session-actions)(\.js)?$/,
  /core\/permissions\/create-safety(\.js)?$/,
  /core\/checkpoints\/workspace-checkpoints(\.js)?$/,
  /core\/mcp\/mcp-manager(\.js)?$/,
  /core\/extensions\/extension-runner(\.js)?$/,
  /core\/reload-runtime(\.js)?$/,
];
/** The session's own parts, reached from a mode through another object than the session. */
const ownedPartAccess =
  /\b(?:runtime\s*\??\.\s*(?:safety|checkpoints|mcp|extensions|todos|reload|settings)|(?:options|context)\s*\??\.\s*(?:safety|checkpoints|mcp|extensions|todos|reload))\b/g;
const importPattern = /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

const problems = [];
for (const [pkg, rules] of Object.entries(forbidden)) {
  for (const folder of ["src", "test"]) {
    for await (const file of walkSourceFiles(join(root, "packages", pkg, folder), builds)) {
      const text = await readFile(file, "utf8");
      const isCore = file.includes(join("packages", "cli", "src", "core"));
      const isModes = file.includes(join("packages", "cli", "src", "modes"));
      if (isModes && !file.endsWith(".test.ts")) {
        for (const match of text.matchAll(ownedPartAccess)) {
          const line = text.slice(0, match.index).split("\n").length;
          problems.push(
            `${relative(root, file)}:${line}: modes/ reaches "${match[0]}"; use the session's ops and state instead`,
          );
        }
      }
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

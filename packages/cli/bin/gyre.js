#!/usr/bin/env node
// Entry point. `--version` and `--help` answer before anything else loads (start-up budget: ~1.5x bare node).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
  const { version } = await import("../dist/version.js");
  process.stdout.write(`${version}\n`);
} else if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
  const { helpText } = await import("../dist/help.js");
  process.stdout.write(helpText);
} else {
  // Node ≥ 22.1 can keep V8's compiled code of the bundle on disk between runs (start-up time).
  // Best effort: an unwritable cache directory or an older Node just compiles as before.
  const { enableCompileCache } = await import("node:module");
  try {
    enableCompileCache?.();
  } catch {}
  await import("../dist/gyre.js");
}

#!/usr/bin/env node
// Entry point. `--version` answers before anything else loads (start-up budget: ~1.5x bare node).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
  const { version } = await import("../dist/version.js");
  process.stdout.write(`${version}\n`);
} else {
  await import("../dist/gyre.js");
}

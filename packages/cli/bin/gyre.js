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
  await import("../dist/gyre.js");
}

// Bundles the CLI into one ESM file (start-up: Node 20 has no compile cache). Skipped until main.ts exists.
import { existsSync } from "node:fs";
import { build } from "esbuild";

const entry = new URL("../packages/cli/src/main.ts", import.meta.url).pathname;
if (!existsSync(entry)) {
  console.log("bundle: packages/cli/src/main.ts not present yet; nothing to bundle");
  process.exit(0);
}
await build({
  entryPoints: [entry],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outfile: new URL("../packages/cli/dist/gyre.js", import.meta.url).pathname,
  sourcemap: true,
  splitting: false,
  external: ["@vscode/ripgrep", "@mariozechner/pi-tui"],
  banner: {
    js: "import { createRequire as __gyreCreateRequire } from 'node:module'; const require = __gyreCreateRequire(import.meta.url);",
  },
  logLevel: "warning",
});

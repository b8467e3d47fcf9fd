// Bundles the CLI into ESM files under packages/cli/dist (start-up: Node 20 has no compile cache).
// Workspace packages are bundled from their TypeScript sources, so this needs no prior tsc build.
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { build } from "esbuild";

const at = (path) => new URL(path, import.meta.url).pathname;
const entry = at("../packages/cli/src/main.ts");
const entryPoints = { version: at("../packages/cli/src/version.ts"), help: at("../packages/cli/src/help-text.ts") };
if (existsSync(entry)) entryPoints.gyre = entry;

// Chunk names carry content hashes: old ones would pile up and ship with `npm pack`.
await rm(at("../packages/cli/dist/chunks"), { recursive: true, force: true });

await build({
  entryPoints,
  outdir: at("../packages/cli/dist"),
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
  chunkNames: "chunks/[name]-[hash]",
  alias: {
    "@gyre/ai/testing": at("../packages/ai/src/testing.ts"),
    "@gyre/ai": at("../packages/ai/src/index.ts"),
    "@gyre/agent": at("../packages/agent/src/index.ts"),
  },
  external: ["@vscode/ripgrep", "@mariozechner/pi-tui", "esbuild", "bullmq", "ioredis"],
  banner: {
    js: "import { createRequire as __gyreCreateRequire } from 'node:module'; const require = __gyreCreateRequire(import.meta.url);",
  },
  logLevel: "warning",
});

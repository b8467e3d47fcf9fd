// npm run demo: bundles the seed demos (packages/agent/examples/seed-demos.ts) straight from the
// packages' sources with esbuild, so it works right after `npm ci` without a build, and runs them.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const source = (path) => fileURLToPath(new URL(`../packages/${path}`, import.meta.url));
const entries = {
  "@gyre/ai": source("ai/src/index.ts"),
  "@gyre/ai/testing": source("ai/src/testing.ts"),
  "@gyre/agent": source("agent/src/index.ts"),
};

/** Resolves our packages to their TypeScript sources instead of their (maybe unbuilt) dist. */
const gyreSources = {
  name: "gyre-sources",
  setup(builder) {
    builder.onResolve({ filter: /^@gyre\/(ai|agent)(\/testing)?$/ }, (args) => {
      const path = entries[args.path];
      return path ? { path } : undefined;
    });
  },
};

const dir = await mkdtemp(join(tmpdir(), "gyre-demo-bundle-"));
try {
  const outfile = join(dir, "seed-demos.mjs");
  await build({
    entryPoints: [source("agent/examples/seed-demos.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    plugins: [gyreSources],
    banner: {
      js: "import { createRequire as __gyreCreateRequire } from 'node:module'; const require = __gyreCreateRequire(import.meta.url);",
    },
    logLevel: "warning",
  });
  const { runSeedDemos } = await import(pathToFileURL(outfile).href);
  await runSeedDemos();
} catch (error) {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}

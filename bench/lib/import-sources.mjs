// Loads parts of gyre's TypeScript sources in a bench process: one ESM bundle of the given export
// lines, written under node_modules (so it finds @vscode/ripgrep as the CLI does) and removed once
// imported. @gyre/ai and @gyre/agent come from their sources; CommonJS dependencies get a require.
import { mkdtempSync, rmSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Imports a module whose text is `exportLines` (paths relative to the repository root). */
export async function importSources(exportLines) {
  const dir = mkdtempSync(path.join(root, "node_modules", ".cache-gyre-bench-"));
  const outfile = path.join(dir, "sources.mjs");
  try {
    await build({
      stdin: { contents: exportLines.join("\n"), resolveDir: root, loader: "ts" },
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile,
      external: ["@vscode/ripgrep"],
      alias: {
        "@gyre/agent": path.join(root, "packages/agent/src/index.ts"),
        "@gyre/ai": path.join(root, "packages/ai/src/index.ts"),
      },
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
      logLevel: "error",
    });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Every ```ts, ```js and ```sh block of README.md, docs/*.md and packages/*\/README.md is run, so a
 * documented example that stops working fails CI. A block that cannot run offline is marked
 * `<!-- doc-test: skip: why -->` on the line before its fence; each appears below as a skipped
 * test naming the reason. The TypeScript examples (and blocks marked `<!-- doc-test: typecheck:
 * why -->`) are type-checked by `npm run check:docs` (scripts/check-doc-examples.mjs).
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../packages/cli/test/helpers/fake-model-server.mjs";
import { documentationBlocks, exampleSources } from "./doc-blocks.mjs";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../", import.meta.url));
const at = (path: string) => join(root, path);
const blocks = documentationBlocks(root);
const sources = Object.fromEntries(Object.entries(exampleSources).map(([name, path]) => [name, at(path)]));

let server: FakeModelServer | undefined;
let dir = "";
beforeAll(async () => {
  server = await startFakeModelServer({ respond: () => ({ text: "5" }) });
  // Inside the repository, so the examples' bare imports resolve as they would for a user.
  dir = await mkdtemp(at(".gyre-test-docs-"));
});
afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The environment an example runs in: the local model server, the built CLI, no real home or keys. */
function exampleEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    GYRE_HOME: dir,
    OPENAI_BASE_URL: `${server?.url}/v1`,
    GYRE_BIN: at("packages/cli/bin/gyre.js"),
  };
}

describe("documentation examples", () => {
  it("finds the examples and every annotation is known", () => {
    expect(blocks.filter((block) => block.action === "run").length).toBeGreaterThanOrEqual(3);
    expect(blocks.filter((block) => block.action === "unknown")).toEqual([]);
  });

  for (const block of blocks.filter((block) => block.action === "skip")) {
    it.skip(`${block.where} is not run: ${block.reason}`, () => {});
  }

  for (const block of blocks.filter((block) => block.action === "run")) {
    it(`${block.where} runs`, async () => {
      const file = join(dir, `${block.where.replace(/[^\w]+/g, "-")}.${block.language === "sh" ? "sh" : "mjs"}`);
      if (block.language === "sh") {
        await writeFile(file, block.code);
        const shell = run("bash", ["-euo", "pipefail", file], { cwd: dir, env: exampleEnv(), timeout: 60_000 });
        // Nothing is typed in: gyre reads piped stdin into the prompt, so it must see its end.
        shell.child.stdin?.end();
        await shell;
        return;
      }
      await build({
        stdin: { contents: block.code, loader: block.language === "js" ? "js" : "ts", resolveDir: dir },
        outfile: file,
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        alias: sources,
        external: ["@vscode/ripgrep", "esbuild", "koffi"],
        banner: {
          js: "import { createRequire as __docsCreateRequire } from 'node:module'; const require = __docsCreateRequire(import.meta.url);",
        },
        logLevel: "silent",
      });
      const result = await run(process.execPath, [file], { cwd: dir, env: exampleEnv(), timeout: 60_000 });
      expect(result.stderr).toBe("");
    }, 90_000);
  }
});

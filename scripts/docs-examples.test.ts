/**
 * Every ```ts, ```js and ```sh block of README.md, docs/*.md and packages/*\/README.md is run (or,
 * marked `<!-- doc-test: typecheck: why -->`, type-checked), so a documented example that stops
 * working fails CI. A block that cannot run offline is marked `<!-- doc-test: skip: why -->` on
 * the line before its fence; each appears below as a skipped test naming the reason.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../packages/cli/test/helpers/fake-model-server.mjs";
import { extractDocBlocks } from "./doc-blocks.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../", import.meta.url));
const at = (path: string) => join(root, path);
const documents = [
  "README.md",
  ...readdirSync(at("docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
  ...readdirSync(at("packages")).map((name) => `packages/${name}/README.md`),
].filter((path) => {
  try {
    readFileSync(at(path));
    return true;
  } catch {
    return false;
  }
});
const blocks = documents.flatMap((path) => extractDocBlocks(readFileSync(at(path), "utf8"), path));
const sources = {
  "@gyre/ai/testing": at("packages/ai/src/testing.ts"),
  "@gyre/ai": at("packages/ai/src/index.ts"),
  "@gyre/agent": at("packages/agent/src/index.ts"),
  gyre: at("packages/cli/src/index.ts"),
};

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

  // Runnable TypeScript examples are type-checked too: esbuild only strips the types.
  const typed = blocks.filter(
    (block) => block.action === "typecheck" || (block.action === "run" && block.language === "ts"),
  );
  it(`type-checks the TypeScript examples (${typed.map((block) => block.where).join(", ")})`, async () => {
    const files = await Promise.all(
      typed.map(async (block, index) => {
        const name = `fragment-${index}.ts`;
        await writeFile(join(dir, name), `// ${block.where}\n${block.code}`);
        return name;
      }),
    );
    const paths = Object.fromEntries(Object.entries(sources).map(([name, path]) => [name, [relative(dir, path)]]));
    const config = {
      extends: relative(dir, at("tsconfig.base.json")),
      compilerOptions: { noEmit: true, paths },
      files,
    };
    await writeFile(join(dir, "tsconfig.json"), JSON.stringify(config));
    const tsc = at("node_modules/typescript/bin/tsc");
    const result = await run(process.execPath, [tsc, "-p", dir]).catch((error: { stdout: string }) => error);
    expect("stdout" in result ? result.stdout : "").toBe("");
  }, 240_000);
});

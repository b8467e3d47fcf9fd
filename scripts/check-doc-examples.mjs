// Type-checks the documentation's TypeScript examples (runnable ```ts blocks and blocks marked
// `<!-- doc-test: typecheck: why -->`) against the workspace sources: esbuild only strips types
// when the doc tests run them. Part of `npm run check` (`check:docs`).
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { documentationBlocks, exampleSources } from "./doc-blocks.mjs";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../", import.meta.url));
const typed = documentationBlocks(root).filter(
  (block) => block.action === "typecheck" || (block.action === "run" && block.language === "ts"),
);
if (typed.length === 0) {
  console.error("check-doc-examples: found no TypeScript example to type-check; the documents moved?");
  process.exit(1);
}

// Inside the repository, so the examples' imports of node built-ins find @types/node.
const dir = await mkdtemp(join(root, ".gyre-test-docs-types-"));
try {
  const files = [];
  for (const [index, block] of typed.entries()) {
    const name = `fragment-${index}.ts`;
    await writeFile(join(dir, name), `// ${block.where}\n${block.code}`);
    files.push(name);
  }
  const paths = Object.fromEntries(
    Object.entries(exampleSources).map(([name, path]) => [name, [relative(dir, join(root, path))]]),
  );
  const config = {
    extends: relative(dir, join(root, "tsconfig.base.json")),
    compilerOptions: { noEmit: true, paths },
    files,
  };
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify(config));
  const tsc = join(root, "node_modules/typescript/bin/tsc");
  const failure = await run(process.execPath, [tsc, "-p", dir]).then(
    () => undefined,
    (error) => error,
  );
  if (failure) {
    // tsc names each fragment file; its first line says which document block it is.
    console.error(
      `check-doc-examples: the examples do not type-check (fragment-N.ts is the Nth of: ${typed.map((block) => block.where).join(", ")}):\n${failure.stdout}`,
    );
    process.exitCode = 1;
  } else console.log(`doc examples type-check (${typed.length})`);
} finally {
  await rm(dir, { recursive: true, force: true });
}

import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * A module hook that logs every module file the CLI loads (bundle chunks and node_modules alike),
 * preloaded with --import: what "nothing loaded" means is checked on the real process.
 */
export async function moduleLogger(): Promise<{ nodeOptions: string; loaded(): Promise<string[]> }> {
  const dir = await mkdtemp(join(tmpdir(), "gyre-modules-"));
  const log = join(dir, "loaded.txt");
  await writeFile(log, "");
  await writeFile(
    join(dir, "hooks.mjs"),
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  if (url.startsWith("file:")) appendFileSync(${JSON.stringify(log)}, url + "\\n");
  return next(url, context);
}
`,
  );
  await writeFile(
    join(dir, "register.mjs"),
    `import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n`,
  );
  return {
    nodeOptions: `--import ${join(dir, "register.mjs")}`,
    loaded: async () => (await readFile(log, "utf8")).split("\n").filter(Boolean),
  };
}

/** Whether any of the loaded files holds code bundled from a path that `pattern` matches (esbuild's `// path` lines). */
export async function loadsBundled(urls: string[], pattern: RegExp): Promise<boolean> {
  for (const url of urls) {
    if (!url.startsWith("file:")) continue;
    const text = await readFile(fileURLToPath(url), "utf8").catch(() => "");
    if (text.split("\n").some((line) => line.startsWith("// ") && pattern.test(line.slice(3)))) return true;
  }
  return false;
}

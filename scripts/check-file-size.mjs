// Fails when a source file outside generated code grows past 800 lines (STYLE.md).
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const limit = 800;

async function* walk(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!["node_modules", "dist", ".git", "fixtures", "results"].includes(entry.name)) yield* walk(path);
    } else if (/\.(ts|mts|js|mjs|tsx)$/.test(entry.name) && !/\.generated\./.test(entry.name)) yield path;
  }
}

const tooLong = [];
for (const folder of ["packages", "scripts", "bench"]) {
  try {
    for await (const file of walk(join(root, folder))) {
      const text = await readFile(file, "utf8");
      if (text.startsWith("// @generated")) continue;
      const lines = text.split("\n").length;
      if (lines > limit) tooLong.push(`${relative(root, file)}: ${lines} lines`);
    }
  } catch (error) {
    if (error.code !== "ENOENT") throw error;
  }
}
if (tooLong.length > 0) {
  console.error(`Files over ${limit} lines (split them):\n${tooLong.join("\n")}`);
  process.exit(1);
}
console.log("file sizes ok");

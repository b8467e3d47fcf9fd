// Fails when a source file cites a document outside the repository ("DESIGN §N", "audit FN", a
// path into ../shared), and when a `docs/….md` or `docs/….md#anchor` it cites does not exist.
// `node scripts/rewrite-citations.mjs` turns the outside citations into docs/design/ ones.
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { sourceFiles } from "./source-files.mjs";

const root = fileURLToPath(new URL("../", import.meta.url));
const outside = [/DESIGN §/, /DESIGN\.md/, /\baudit F\d/, /\.\.\/shared\b/];
const exempt = new Set(["scripts/check-citations.mjs", "scripts/rewrite-citations.mjs"]);

/** The anchors GitHub gives a Markdown file's headings. */
const anchorsOf = new Map();
function anchors(path) {
  if (!anchorsOf.has(path)) {
    const slugs = new Set();
    for (const line of readFileSync(join(root, path), "utf8").split("\n")) {
      const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
      if (heading) slugs.add(slug(heading[1]));
    }
    anchorsOf.set(path, slugs);
  }
  return anchorsOf.get(path);
}

function slug(heading) {
  return heading
    .toLowerCase()
    .replace(/[`*_[\]()]/g, "")
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .trim()
    .replace(/\s/g, "-");
}

const problems = [];
for (const file of await sourceFiles(root)) {
  const where = relative(root, file);
  if (exempt.has(where)) continue;
  const lines = (await readFile(file, "utf8")).split("\n");
  lines.forEach((line, index) => {
    const at = `${where}:${index + 1}`;
    for (const pattern of outside)
      if (pattern.test(line)) problems.push(`${at}: cites a document outside the repository (${pattern.source})`);
    // Only comments cite; a path in code ("docs/README.md" as a glob's test input) is data.
    if (!/^\s*(\/\/|\/\*|\*)/.test(line)) return;
    for (const match of line.matchAll(/(?<![\w/.-])docs\/([\w./-]+\.md)(?:#([\w-]+))?/g)) {
      const path = `docs/${match[1]}`;
      if (!existsSync(join(root, path))) problems.push(`${at}: cites ${path}, which does not exist`);
      else if (match[2] && !anchors(path).has(match[2]))
        problems.push(`${at}: cites ${path}#${match[2]}, which has no such heading`);
    }
  });
}
if (problems.length > 0) {
  console.error(
    `Citation check failed (cite docs/ files; node scripts/rewrite-citations.mjs rewrites DESIGN/audit citations):\n${problems.join("\n")}`,
  );
  process.exit(1);
}
console.log("citations ok");

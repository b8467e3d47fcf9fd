// Rewrites source comments that cite documents outside the repository ("DESIGN §N", "audit FN",
// paths into ../shared) to cite the design pages in docs/design/. Re-runnable and idempotent:
// what it writes contains none of the patterns it looks for, so a second run changes nothing.
// A citation it has no mapping for is listed and the script exits 1, so nothing is left behind
// silently: add the mapping below (and the page or section) and run it again.
//   node scripts/rewrite-citations.mjs           rewrite in place, list what changed
//   node scripts/rewrite-citations.mjs --check   change nothing; exit 1 if anything would change
import { readFile, writeFile } from "node:fs/promises";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { sourceFiles } from "./source-files.mjs";

const root = fileURLToPath(new URL("../", import.meta.url));
const checkOnly = process.argv.includes("--check");

/** The design pages by DESIGN section number. */
const sections = {
  1: "docs/design/layers.md",
  2: "docs/design/messages-and-events.md#messages",
  3: "docs/design/messages-and-events.md#provider-stream-events",
  4: "docs/design/messages-and-events.md#agent-events",
  5: "docs/design/layers.md",
  6: "docs/design/sessions-on-disk.md",
  8: "docs/design/safety.md",
  9: "docs/design/mcp.md",
  10: "docs/design/rewind.md",
  11: "docs/design/delegation.md",
  12: "docs/design/session.md",
};
/** The design sections that replaced findings of the reliability audit. */
const findings = {
  F2: "docs/design/safety.md#protected-paths",
  F3: "docs/design/safety.md#approvals",
  F19: "docs/design/messages-and-events.md#retrying-a-failed-stream",
};

const unmapped = [];
const target = (kind, key, where) => {
  const page = kind === "section" ? sections[key] : findings[key];
  if (!page) unmapped.push(`${where}: ${kind === "section" ? `DESIGN §${key}` : `audit ${key}`}`);
  return page;
};

/** One file's text with its citations rewritten. */
function rewrite(text, where) {
  return (
    text
      // "DESIGN §2–3", "DESIGN §8/§9", "DESIGN §8": one page per section, joined with a comma.
      .replace(/DESIGN §(\d+)(?:\s*(?:[–-]|\/)\s*§?(\d+))?/g, (match, first, second) => {
        const numbers = second && match.includes("–") ? range(Number(first), Number(second)) : [first, second];
        const pages = [...new Set(numbers.filter(Boolean).map((n) => target("section", n, where)))];
        return pages.every(Boolean) ? pages.join(", ") : match;
      })
      .replace(/\baudit (F\d+)/g, (match, key) => target("finding", key, where) ?? match)
  );
}

function range(from, to) {
  return Array.from({ length: to - from + 1 }, (_, index) => String(from + index));
}

const changed = [];
for (const file of await sourceFiles(root)) {
  const where = relative(root, file);
  if (where === "scripts/rewrite-citations.mjs" || where === "scripts/check-citations.mjs") continue;
  const text = await readFile(file, "utf8");
  const next = rewrite(text, where);
  if (next !== text) {
    changed.push(where);
    if (!checkOnly) await writeFile(file, next);
  }
}
const leftOver = [];
for (const file of await sourceFiles(root)) {
  const where = relative(root, file);
  if (where === "scripts/rewrite-citations.mjs" || where === "scripts/check-citations.mjs") continue;
  if (/\.\.\/shared\//.test(await readFile(file, "utf8"))) leftOver.push(`${where}: a path into ../shared`);
}
console.log(
  changed.length === 0
    ? "rewrite-citations: nothing to rewrite"
    : `rewrite-citations: ${checkOnly ? "would rewrite" : "rewrote"} ${changed.length} file(s):\n  ${changed.join("\n  ")}`,
);
if (unmapped.length + leftOver.length > 0) {
  console.error(
    `rewrite-citations: no mapping for these citations; add one and run again:\n  ${[...unmapped, ...leftOver].join("\n  ")}`,
  );
  process.exitCode = 1;
} else if (checkOnly && changed.length > 0) process.exitCode = 1;

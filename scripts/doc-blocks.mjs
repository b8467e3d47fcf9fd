// The fenced code blocks of the documentation, for the doc tests (scripts/docs-examples.test.ts) and
// the type check of the examples (scripts/check-doc-examples.mjs). Plain JavaScript so `npm run
// check` runs it with Node alone; the types are in doc-blocks.d.mts.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** @type {Record<string, "ts" | "js" | "sh">} */
const languages = {
  ts: "ts",
  typescript: "ts",
  js: "js",
  javascript: "js",
  sh: "sh",
  bash: "sh",
  shell: "sh",
};

/**
 * The ts/js/sh blocks of `markdown` in document order; other languages (```markdown, ```json,
 * bare fences) are left out. An annotation without a reason counts as `unknown`, so the tests
 * fail on it rather than silently skip.
 */
export function extractDocBlocks(markdown, path) {
  const lines = markdown.split("\n");
  /** @type {import("./doc-blocks.d.mts").DocBlock[]} */
  const blocks = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^```(\w*)\s*$/.exec(lines[index] ?? "");
    if (!open) continue;
    const close = lines.findIndex((line, at) => at > index && /^```\s*$/.test(line));
    const end = close === -1 ? lines.length : close;
    const language = languages[(open[1] ?? "").toLowerCase()];
    if (language) {
      const mark = /^<!--\s*doc-test:\s*(\w+)(?::\s*(.+?))?\s*-->$/.exec((lines[index - 1] ?? "").trim());
      const action = !mark ? "run" : (mark[1] === "skip" || mark[1] === "typecheck") && mark[2] ? mark[1] : "unknown";
      blocks.push({
        where: `${path}:${index + 1}`,
        language,
        code: lines.slice(index + 1, end).join("\n"),
        action,
        ...(mark?.[2] ? { reason: mark[2] } : {}),
      });
    }
    index = end;
  }
  return blocks;
}

/** The documents whose blocks are tested: README.md, docs/*.md and packages/*\/README.md, as paths under `root`. */
export function documentedPaths(root) {
  const docs = readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`);
  const readmes = readdirSync(join(root, "packages")).map((name) => `packages/${name}/README.md`);
  return ["README.md", ...docs, ...readmes].filter((path) => {
    try {
      readFileSync(join(root, path));
      return true;
    } catch {
      return false;
    }
  });
}

/** Every ts/js/sh block of the documented paths under `root`. */
export function documentationBlocks(root) {
  return documentedPaths(root).flatMap((path) => extractDocBlocks(readFileSync(join(root, path), "utf8"), path));
}

/** The workspace sources the examples' bare imports stand for, as paths under `root`. */
export const exampleSources = {
  "@gyre/ai/testing": "packages/ai/src/testing.ts",
  "@gyre/ai": "packages/ai/src/index.ts",
  "@gyre/agent": "packages/agent/src/index.ts",
  gyre: "packages/cli/src/index.ts",
};

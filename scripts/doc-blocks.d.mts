/** A fenced code block of a Markdown document and what the documentation tests do with it. */
export type DocBlock = {
  /** `path:line` of the opening fence. */
  where: string;
  language: "ts" | "js" | "sh";
  code: string;
  /** `run` unless the line before the fence says `<!-- doc-test: skip|typecheck: reason -->`. */
  action: "run" | "skip" | "typecheck" | "unknown";
  reason?: string;
};

/**
 * The ts/js/sh blocks of `markdown` in document order; other languages (```markdown, ```json,
 * bare fences) are left out. An annotation without a reason counts as `unknown`, so the tests
 * fail on it rather than silently skip.
 */
export function extractDocBlocks(markdown: string, path: string): DocBlock[];
/** The documents whose blocks are tested: README.md, docs/*.md and packages/*\/README.md, as paths under `root`. */
export function documentedPaths(root: string): string[];
/** Every ts/js/sh block of the documented paths under `root`. */
export function documentationBlocks(root: string): DocBlock[];
/** The workspace sources the examples' bare imports stand for, as paths under `root`. */
export const exampleSources: Record<string, string>;

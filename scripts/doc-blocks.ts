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

const languages: Record<string, DocBlock["language"]> = {
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
export function extractDocBlocks(markdown: string, path: string): DocBlock[] {
  const lines = markdown.split("\n");
  const blocks: DocBlock[] = [];
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

/** A Markdown file split into its frontmatter fields and body. */
export type Frontmatter = { fields: Record<string, string>; body: string };

/**
 * Reads a leading `---` block of `key: value` lines (quotes around values removed; other YAML
 * is ignored). Without a frontmatter block, every field is absent and the body is the text.
 */
export function parseFrontmatter(text: string): Frontmatter {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  const match = /^---\n([\s\S]*?)\n---(?:\n|$)/.exec(normalized);
  if (!match) return { fields: {}, body: normalized };
  const fields: Record<string, string> = {};
  for (const line of (match[1] ?? "").split("\n")) {
    const field = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(line);
    if (!field?.[1]) continue;
    fields[field[1]] = (field[2] ?? "").trim().replace(/^(["'])(.*)\1$/, "$2");
  }
  return { fields, body: normalized.slice(match[0].length) };
}

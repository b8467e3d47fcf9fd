/** A Markdown file split into its frontmatter fields and body. */
export type Frontmatter = {
  fields: Record<string, string>;
  body: string;
  /** Fields that are lists of text (`allowed-tools: [Read, Grep]`); absent when there are none. */
  lists?: Record<string, string[]>;
};

/**
 * Reads a leading `---` YAML block (any YAML: quoted, folded `>` and literal `|` scalars…).
 * Scalar values become strings (`true`, `3`); lists of text go to `lists`; maps are left out,
 * since every field gyre reads is text. Without a frontmatter block, every field is absent and the body is the
 * text. Throws one sentence naming `source` when the block is not valid YAML or not a mapping.
 */
export async function parseFrontmatter(text: string, source = "the file"): Promise<Frontmatter> {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  // Most files have no frontmatter: the YAML parser (~17 ms to import) loads only for those that do.
  if (!normalized.startsWith("---")) return { fields: {}, body: normalized };
  const match = /^---\n([\s\S]*?)\n?---(?:\n|$)/.exec(normalized);
  if (!match) return { fields: {}, body: normalized };
  const yaml = await import("yaml");
  // yaml is CommonJS for Node: bundled, its exports arrive only on `default`.
  const parse = yaml.parse ?? (yaml as unknown as { default: typeof yaml }).default.parse;
  let data: unknown;
  try {
    data = parse(match[1] ?? "");
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new Error(`The frontmatter of ${source} is not valid YAML (${reason}); fix it or remove the --- block.`);
  }
  if (data !== null && data !== undefined && (typeof data !== "object" || Array.isArray(data))) {
    throw new Error(`The frontmatter of ${source} is not a list of "key: value" fields; write one field per line.`);
  }
  const fields: Record<string, string> = {};
  const lists: Record<string, string[]> = {};
  for (const [key, value] of Object.entries((data ?? {}) as Record<string, unknown>)) {
    if (typeof value === "string") fields[key] = value.trim();
    else if (typeof value === "number" || typeof value === "boolean") fields[key] = String(value);
    else if (Array.isArray(value) && value.every((item) => typeof item === "string")) lists[key] = value;
  }
  const body = normalized.slice(match[0].length);
  return Object.keys(lists).length > 0 ? { fields, body, lists } : { fields, body };
}

import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { basename, dirname, join, sep } from "node:path";
import { type Frontmatter, parseFrontmatter } from "../skills/parse-frontmatter.js";

/**
 * A prompt template: `<dir>/<name>.md`, invoked as `/name args`. `allowedTools` (Claude's rule
 * syntax, `Bash(git add:*)`) and `model` come from the front-matter's `allowed-tools` and `model`:
 * they hold for the one prompt the template makes (docs/claude-compat.md).
 */
export type PromptTemplate = {
  name: string;
  description: string;
  filePath: string;
  content: string;
  argumentHint?: string;
  allowedTools?: string[];
  model?: string;
  /** A Claude Code command's origin, `project`, `user` or with its subfolder `project:frontend`; its body's `!`cmd`` and `@path` are expanded (docs/claude-compat.md). */
  claudeScope?: string;
};

/**
 * A folder of templates: a path (gyre's layout, `*.md` at its top), or a Claude Code commands
 * folder, read with its subfolders as Claude Code does: `frontend/component.md` is `/component`,
 * its description ending in `(project:frontend)`.
 */
export type TemplateDir = string | { path: string; claude: "user" | "project" };

/** How deep Claude command subfolders are read; the folder is the user's, not a tree to crawl. */
const MAX_COMMAND_DEPTH = 5;

/**
 * The `*.md` templates in each of `dirs`; a later folder's template replaces an earlier one of
 * the same name (project over user, gyre's own over Claude's). Within one Claude commands folder
 * the shallowest file wins a name, then the first in path order. A missing folder has none.
 */
export async function loadPromptTemplates(dirs: readonly TemplateDir[]): Promise<PromptTemplate[]> {
  const byName = new Map<string, PromptTemplate>();
  for (const dir of dirs) {
    const root = typeof dir === "string" ? dir : dir.path;
    const files = await listTemplateFiles(root, typeof dir === "string" ? 0 : MAX_COMMAND_DEPTH);
    const seen = new Set<string>();
    for (const relativePath of files) {
      const name = basename(relativePath, ".md");
      if (seen.has(name)) continue;
      seen.add(name);
      const filePath = join(root, relativePath);
      const scope =
        typeof dir === "string"
          ? undefined
          : [dir.claude, ...dirname(relativePath).split(sep)].filter((part) => part !== ".").join(":");
      const template = await readTemplate(filePath, name, scope);
      if (template) byName.set(name, template);
    }
  }
  return [...byName.values()];
}

/** The `.md` files under `root` (relative paths), shallowest first, then in path order; subfolders to `depth`. */
async function listTemplateFiles(root: string, depth: number, prefix = ""): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(join(root, prefix), { withFileTypes: true });
  } catch {
    return [];
  }
  const sorted = entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const files = sorted
    .filter((entry) => !entry.isDirectory() && entry.name.endsWith(".md"))
    .map((entry) => join(prefix, entry.name));
  if (depth === 0) return files;
  const deeper: string[][] = [];
  for (const entry of sorted)
    if (entry.isDirectory() && !entry.name.startsWith("."))
      deeper.push(await listTemplateFiles(root, depth - 1, join(prefix, entry.name)));
  // Shallowest first across sibling folders: a top-level command beats a subfolder's of the same name.
  const all = deeper.flat().sort((a, b) => a.split(sep).length - b.split(sep).length);
  return [...files, ...all];
}

async function readTemplate(
  filePath: string,
  name: string,
  claudeScope: string | undefined,
): Promise<PromptTemplate | undefined> {
  const text = await readFile(filePath, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  // A template whose header is not valid YAML still loads, whole, rather than vanish.
  const { fields, body, lists } = await parseFrontmatter(text, filePath).catch(
    (): Frontmatter => ({ fields: {}, body: text }),
  );
  const firstLine = body.trim().split("\n")[0] ?? "";
  const allowedTools = lists?.["allowed-tools"] ?? splitToolList(fields["allowed-tools"] ?? "");
  const description = fields.description ?? firstLine.slice(0, 80);
  return {
    name,
    description: claudeScope ? `${description} (${claudeScope})`.trim() : description,
    filePath,
    content: body,
    ...(fields["argument-hint"] ? { argumentHint: fields["argument-hint"] } : {}),
    ...(allowedTools.length > 0 ? { allowedTools } : {}),
    ...(fields.model ? { model: fields.model } : {}),
    ...(claudeScope ? { claudeScope } : {}),
  };
}

/**
 * The tools of an `allowed-tools` line: separated by commas or spaces outside parentheses
 * (`Bash(git add:*), Bash(git status:*) Read` is three).
 */
export function splitToolList(text: string): string[] {
  const tools: string[] = [];
  let current = "";
  let depth = 0;
  for (const char of text) {
    if (char === "(") depth++;
    if (char === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === "," || /\s/.test(char))) {
      if (current) tools.push(current);
      current = "";
    } else current += char;
  }
  if (current) tools.push(current);
  return tools;
}

/**
 * Splits command arguments like a shell does for words: whitespace separates, and "double" or
 * 'single' quotes keep spaces inside one argument (the quotes are removed).
 */
export function splitArguments(text: string): string[] {
  const args: string[] = [];
  let current = "";
  let quote: string | undefined;
  let inArgument = false;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inArgument = true;
    } else if (/\s/.test(char)) {
      if (inArgument) args.push(current);
      current = "";
      inArgument = false;
    } else {
      current += char;
      inArgument = true;
    }
  }
  if (inArgument) args.push(current);
  return args;
}

/**
 * Fills a template: `$1`, `$2`, … are the arguments by position (empty when missing),
 * `$@` and `$ARGUMENTS` all of them joined by spaces. Other `$` text stays as it is.
 */
export function expandPromptTemplate(content: string, args: readonly string[]): string {
  const all = args.join(" ");
  return content.replace(/\$(ARGUMENTS|@|\d+)/g, (_match, key: string) => {
    if (key === "ARGUMENTS" || key === "@") return all;
    return args[Number(key) - 1] ?? "";
  });
}

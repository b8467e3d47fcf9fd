import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
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
};

/**
 * The `*.md` templates in each of `dirs`; a later folder's template replaces an earlier one of
 * the same name (project over user). A missing folder has none.
 */
export async function loadPromptTemplates(dirs: readonly string[]): Promise<PromptTemplate[]> {
  const byName = new Map<string, PromptTemplate>();
  for (const dir of dirs) {
    let files: string[];
    try {
      files = (await readdir(dir)).filter((file) => file.endsWith(".md")).sort();
    } catch {
      continue;
    }
    for (const file of files) {
      const filePath = join(dir, file);
      const text = await readFile(filePath, "utf8").catch(() => undefined);
      if (text === undefined) continue;
      // A template whose header is not valid YAML still loads, whole, rather than vanish.
      const { fields, body, lists } = await parseFrontmatter(text, filePath).catch(
        (): Frontmatter => ({ fields: {}, body: text }),
      );
      const name = basename(file, ".md");
      const firstLine = body.trim().split("\n")[0] ?? "";
      const allowedTools = lists?.["allowed-tools"] ?? splitToolList(fields["allowed-tools"] ?? "");
      byName.set(name, {
        name,
        description: fields.description ?? firstLine.slice(0, 80),
        filePath,
        content: body,
        ...(fields["argument-hint"] ? { argumentHint: fields["argument-hint"] } : {}),
        ...(allowedTools.length > 0 ? { allowedTools } : {}),
        ...(fields.model ? { model: fields.model } : {}),
      });
    }
  }
  return [...byName.values()];
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

/**
 * `@path` imports in `CLAUDE.md` (docs/claude-compat.md): a memory file names other files with
 * `@notes/git.md`, `@~/.claude/mine.md` or `@/abs/path`; each is loaded as a context file of its
 * own, right after the file that imports it, and may import in turn up to five hops away. An
 * `@` inside a code span or a fenced code block is text, not an import.
 */
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { type ContextFile, readContextFile } from "../system-prompt/context-files.js";

/** How many hops of imports are followed from a `CLAUDE.md`, as Claude Code documents. */
export const MAX_IMPORT_DEPTH = 5;

/** Trailing characters that end a sentence rather than a path (`see @README.md.`). */
const TRAILING = /[.,;:!?)\]}'"]+$/;

/**
 * The text of `markdown` with code spans and fenced code blocks blanked out (same length, newlines
 * kept), so positions found in it point into the original.
 */
export function maskCode(markdown: string): string {
  const blank = (text: string) => text.replace(/[^\n]/g, " ");
  let fence: string | undefined;
  const lines = markdown.split("\n").map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker === undefined) return line;
    if (fence === undefined) fence = marker;
    else if (marker?.startsWith(fence) && line.trim() === marker) fence = undefined;
    return blank(line);
  });
  return lines.join("\n").replace(/(`+)[^`][\s\S]*?\1/g, blank);
}

/** The `@path` references of `markdown` outside code, in order: at the start or after white space. */
export function findAtReferences(markdown: string): { index: number; raw: string; path: string }[] {
  const masked = maskCode(markdown);
  const found: { index: number; raw: string; path: string }[] = [];
  for (const match of masked.matchAll(/(^|\s)@([^\s@`]+)/g)) {
    const path = (match[2] ?? "").replace(TRAILING, "");
    if (path === "" || path === "~") continue;
    const index = (match.index ?? 0) + (match[1]?.length ?? 0);
    found.push({ index, raw: `@${path}`, path });
  }
  return found;
}

/** Where `@path` points: `~/` from the home folder, absolute as is, else from `baseDir`. */
export function resolveReference(path: string, options: { baseDir: string; home?: string }): string {
  if (path === "~" || path.startsWith("~/")) return join(options.home ?? homedir(), path.slice(1));
  return isAbsolute(path) ? path : resolve(options.baseDir, path);
}

/**
 * The files `file` imports, and theirs, depth first, each once (`seen` holds the paths already in
 * context, and is added to). A missing or unreadable file is passed over, as it is no import.
 */
export async function importedContextFiles(
  file: ContextFile,
  options: { home: string; seen: Set<string>; depth?: number },
): Promise<ContextFile[]> {
  const depth = options.depth ?? 0;
  if (depth >= MAX_IMPORT_DEPTH) return [];
  const found: ContextFile[] = [];
  for (const reference of findAtReferences(file.content)) {
    const path = resolveReference(reference.path, { baseDir: dirname(file.path), home: options.home });
    if (options.seen.has(path)) continue;
    const content = await readContextFile(path);
    if (content === undefined) continue;
    options.seen.add(path);
    const imported = { path, content };
    found.push(imported, ...(await importedContextFiles(imported, { ...options, depth: depth + 1 })));
  }
  return found;
}

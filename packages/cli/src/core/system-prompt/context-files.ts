import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, join, parse, resolve } from "node:path";

export type ContextFile = { path: string; content: string };

const names = ["AGENTS.md", "CLAUDE.md"];

/** The most of one context file that reaches the model; an untrusted repo decides the size. */
export const MAX_CONTEXT_FILE_BYTES = 256 * 1024;

/**
 * A context file's text, or undefined when `path` is missing or not a regular file. Opened
 * non-blocking, so a FIFO never hangs start-up, and checked on the opened handle (a device or
 * FIFO is passed over); at most `MAX_CONTEXT_FILE_BYTES` are read, with a note when cut.
 */
export async function readContextFile(path: string): Promise<string | undefined> {
  let handle: import("node:fs/promises").FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    const length = Math.min(info.size, MAX_CONTEXT_FILE_BYTES);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    const text = buffer.toString("utf8", 0, bytesRead);
    if (info.size <= MAX_CONTEXT_FILE_BYTES) return text;
    return `${text}\n\n[${path} is ${info.size} bytes; only its first ${MAX_CONTEXT_FILE_BYTES} were loaded]`;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

async function readFirst(dir: string): Promise<ContextFile | undefined> {
  for (const name of names) {
    const path = join(dir, name);
    const content = await readContextFile(path);
    if (content !== undefined) return { path, content };
  }
  return undefined;
}

/** Whether a context file is the user's own (`$GYRE_HOME/AGENTS.md`), not a project's: a whole-folder match. */
export function isGyreHomeContextFile(path: string, gyreHome: string): boolean {
  return dirname(path) === resolve(gyreHome);
}

/**
 * The context files the model gets, in order: `$GYRE_HOME/AGENTS.md` (or `CLAUDE.md`), then one
 * per directory from the filesystem root down to `cwd` (AGENTS.md preferred over CLAUDE.md in
 * the same folder). Reads at most one size-capped regular file per directory; never scans.
 */
export async function loadContextFiles(options: { cwd: string; gyreHome: string }): Promise<ContextFile[]> {
  const dirs: string[] = [];
  let current = resolve(options.cwd);
  const { root } = parse(current);
  while (true) {
    dirs.unshift(current);
    if (current === root) break;
    current = dirname(current);
  }
  const found = await Promise.all([readFirst(resolve(options.gyreHome)), ...dirs.map(readFirst)]);
  const seen = new Set<string>();
  return found.filter((file): file is ContextFile => {
    if (!file || seen.has(file.path)) return false;
    seen.add(file.path);
    return true;
  });
}

/**
 * Reading a session file: the header, then every line indexed by its tree fields. Damage is
 * reported, never "fixed" by rewriting: a torn last line is skipped (the writer later appends a
 * newline before its first entry), an unparseable line elsewhere is skipped with its line number.
 */
import { readFile } from "node:fs/promises";
import { GyreError } from "@gyre/ai";
import { parseSessionEntryLine, parseSessionHeader, readEntryPrefix } from "./parse-entry.js";
import { SessionTree } from "./session-tree.js";
import type { ReadProblem, SessionHeader } from "./types.js";

/** A session file as read from disk. */
export type LoadedSession = {
  header: SessionHeader;
  tree: SessionTree;
  /** False when the file does not end with a newline: the next append must start with one. */
  endsWithNewline: boolean;
};

const NEWLINE = 0x0a;
const NUL = 0;

/**
 * Reads and indexes a session file. Throws a `GyreError` ("usage") when the file is missing, is
 * not a gyre session, or has a newer format version; never modifies the file.
 */
export async function readSessionFile(path: string): Promise<LoadedSession> {
  let buffer: Buffer;
  try {
    buffer = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new GyreError(
      "usage",
      `Cannot open session ${path}: ${code === "ENOENT" ? "no such file" : String(error)}.`,
      {
        cause: error,
      },
    );
  }
  const loaded = loadSessionBuffer(buffer);
  if (!loaded.ok) throw new GyreError("usage", `Cannot open session ${path}: ${loaded.error}.`);
  return loaded.value;
}

/**
 * Indexes the bytes of a session file. Lines in gyre's own layout are indexed from their first
 * bytes and parsed later, on use; other lines are parsed now. Only the header can make it fail.
 */
export function loadSessionBuffer(buffer: Buffer): { ok: true; value: LoadedSession } | { ok: false; error: string } {
  const headerEnd = buffer.indexOf(NEWLINE);
  if (buffer.length === 0) return { ok: false, error: "the file is empty" };
  const header = parseSessionHeader(buffer.toString("utf8", 0, headerEnd < 0 ? buffer.length : headerEnd));
  if (!header.ok) return header;
  const tree = new SessionTree(buffer);
  const endsWithNewline = buffer[buffer.length - 1] === NEWLINE;
  let line = 1;
  let start = headerEnd < 0 ? buffer.length : headerEnd + 1;
  while (start < buffer.length) {
    line++;
    let end = buffer.indexOf(NEWLINE, start);
    const isLast = end < 0;
    if (isLast) end = buffer.length;
    indexLine({ buffer, tree, line, start, end, isLast });
    start = end + 1;
  }
  return { ok: true, value: { header: header.value, tree, endsWithNewline } };
}

type LineInput = { buffer: Buffer; tree: SessionTree; line: number; start: number; end: number; isLast: boolean };

function indexLine({ buffer, tree, line, start, end, isLast }: LineInput): void {
  // A crash can leave a run of NUL bytes where a write was lost; a good line may follow it.
  let from = start;
  while (from < end && buffer[from] === NUL) from++;
  if (from > start) tree.problems.push({ line, message: `${from - start} NUL bytes skipped` });
  if (from === end) return;
  const prefix = isLast ? undefined : readEntryPrefix(buffer, from, end);
  if (prefix) {
    tree.addRange(prefix, line, from, end);
    return;
  }
  const text = buffer.toString("utf8", from, end);
  if (text.trim() === "") return;
  const parsed = parseSessionEntryLine(text);
  if (parsed.ok) tree.addEntry(parsed.value, line);
  else tree.problems.push(describeProblem(line, parsed.error, isLast));
}

function describeProblem(line: number, error: string, isLast: boolean): ReadProblem {
  if (isLast) return { line, message: "the last line is incomplete (a write was cut off); skipped" };
  return { line, message: `${error}; skipped` };
}

/**
 * Reading a session file: the header, then every line indexed by its tree fields. Damage is
 * reported, never "fixed" by rewriting: a torn last line is skipped (the writer later appends a
 * newline before its first entry), an unparseable line elsewhere is skipped with its line number.
 */
import { type FileHandle, open } from "node:fs/promises";
import { CliError } from "../errors.js";
import { LAZY_ENTRY_TYPES } from "./entry-types.js";
import { entryLinePrefix, readEntryPrefix } from "./line-format.js";
import { parseSessionEntryLine, parseSessionHeader } from "./parse-entry.js";
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
/** Bytes read per call. The read buffer is reused, so reading the file costs no more memory than this. */
const CHUNK_SIZE = 4 * 1024 * 1024;

export type ReadOptions = {
  /** Bytes read per call (default 4 MiB). Tests set it small to put lines across reads. */
  chunkSize?: number;
};

/**
 * Reads and indexes a session file. Throws a `CliError` ("session_not_found", "session_unreadable", "session_invalid") when the file is missing, is
 * not a gyre session, or has a newer format version; never modifies the file.
 */
export async function readSessionFile(path: string, options: ReadOptions = {}): Promise<LoadedSession> {
  let loaded: Awaited<ReturnType<typeof readFromHandle>>;
  try {
    const handle = await open(path, "r");
    try {
      loaded = await readFromHandle(handle, options.chunkSize ?? CHUNK_SIZE);
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      code === "ENOENT" ? "session_not_found" : "session_unreadable",
      `Cannot open session ${path}: ${code === "ENOENT" ? "no such file" : String(error)}.`,
      { cause: error },
    );
  }
  if (!loaded.ok) throw new CliError("session_invalid", `Cannot open session ${path}: ${loaded.error}.`);
  return loaded.value;
}

/**
 * Two passes over the file. The first indexes every line by its tree fields; the second parses
 * the lines of the current branch's context and keeps only the bytes of the other lines. How
 * the bytes get to the second pass depends on a look at the file's tail: with a compaction there
 * (most lines will stay unparsed), the first pass keeps what it read; without one (the branch is
 * likely most of the file), it reuses one buffer and the second pass reads the lines again, so
 * the entries are never held next to a copy of the whole file. Either way the result is the same.
 */
async function readFromHandle(handle: FileHandle, chunkSize: number): Promise<ReadResult> {
  const state: IndexState = { tree: new SessionTree(), header: undefined, line: 0, lastByte: undefined };
  const size = (await handle.stat()).size;
  const scratch = { buffer: Buffer.allocUnsafe(Math.min(chunkSize, size + 1)) };
  const tail = await readRange(handle, scratch.buffer, Math.max(0, size - chunkSize), size);
  const chunks: ReadChunk[] | undefined = tail.includes(COMPACTION_PREFIX) ? [] : undefined;
  const problem = await indexFile(handle, state, scratch, chunks);
  if (problem !== undefined) return { ok: false, error: problem };
  if (state.header === undefined) return { ok: false, error: "the file is empty" };
  const tree = state.tree;
  if (chunks !== undefined) {
    // Kept bytes are parsed on first use, when `buildContext` asks for the branch.
    for (const chunk of chunks) tree.load(tree.rowsOnDisk(chunk.rows), chunk.bytes, chunk.start, () => false);
  } else {
    const path = tree.pathRows(tree.lastId());
    const needed = new Set(path.slice(tree.contextStart(path)));
    await loadLines({ handle, tree, scratch, chunkSize, parseNow: (row) => needed.has(row) });
  }
  return { ok: true, value: { header: state.header, tree, endsWithNewline: state.lastByte === NEWLINE } };
}

const COMPACTION_PREFIX = entryLinePrefix("compaction");

type ReadResult = { ok: true; value: LoadedSession } | { ok: false; error: string };
type IndexState = { tree: SessionTree; header: SessionHeader | undefined; line: number; lastByte: number | undefined };
type Scratch = { buffer: Buffer };
/** Bytes kept from the first pass: file offset `start` on, with rows [rows[0], rows[1]). */
type ReadChunk = { bytes: Buffer; start: number; rows: [number, number] };

/**
 * First pass: reads whole lines a buffer at a time and indexes them. With `chunks`, each buffer
 * is new and kept there; without, one buffer is reused. Returns why the header is bad, if it is.
 */
async function indexFile(
  handle: FileHandle,
  state: IndexState,
  scratch: Scratch,
  chunks: ReadChunk[] | undefined,
): Promise<string | undefined> {
  let position = 0;
  let carried = 0;
  for (;;) {
    const buffer = scratch.buffer; // the carried part of the last line read comes first
    let filled = carried;
    let atEnd = false;
    while (filled < buffer.length && !atEnd) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, position + filled);
      filled += bytesRead;
      atEnd = bytesRead === 0;
    }
    if (filled > 0) state.lastByte = buffer[filled - 1];
    const cut = atEnd ? filled : buffer.lastIndexOf(NEWLINE, filled - 1) + 1;
    const firstRow = state.tree.rowCount;
    const problem = indexLines(state, buffer.subarray(0, cut), position, atEnd);
    if (problem !== undefined) return problem;
    if (chunks !== undefined && cut > 0)
      chunks.push({ bytes: buffer.subarray(0, cut), start: position, rows: [firstRow, state.tree.rowCount] });
    if (atEnd) return undefined;
    position += cut;
    carried = filled - cut;
    // A line longer than the buffer is carried whole into one twice the size.
    const size = carried === buffer.length ? 2 * buffer.length : buffer.length;
    if (chunks === undefined && size === buffer.length) buffer.copy(buffer, 0, cut, filled);
    else {
      scratch.buffer = Buffer.allocUnsafe(size);
      buffer.copy(scratch.buffer, 0, cut, filled);
    }
  }
}

/**
 * Second pass: reads the lines still on disk, in runs of up to a buffer, and parses those of the
 * current branch's context (leaf: the last entry). A run with other lines is read into a buffer of
 * its own, which the tree keeps for them; a run of context lines only reuses the scratch buffer.
 */
type LoadInput = {
  handle: FileHandle;
  tree: SessionTree;
  scratch: Scratch;
  chunkSize: number;
  parseNow: (row: number) => boolean;
};

async function loadLines({ handle, tree, scratch, chunkSize, parseNow }: LoadInput): Promise<void> {
  const rows = tree.rowsOnDisk([0, tree.rowCount]);
  let index = 0;
  while (index < rows.length) {
    const [start] = tree.byteRange(rows[index] as number);
    let last = index;
    let allNeeded = parseNow(rows[index] as number);
    while (last + 1 < rows.length && tree.byteRange(rows[last + 1] as number)[1] - start <= chunkSize) {
      last++;
      allNeeded &&= parseNow(rows[last] as number);
    }
    const run = rows.slice(index, last + 1);
    const end = tree.byteRange(rows[last] as number)[1];
    let buffer = allNeeded && end - start <= scratch.buffer.length ? scratch.buffer : Buffer.allocUnsafe(end - start);
    buffer = await readRange(handle, buffer, start, end);
    tree.load(run, buffer, start, parseNow);
    index = last + 1;
  }
}

/** Reads file bytes [start, end) into the front of `buffer`; a file cut short leaves zeros. */
async function readRange(handle: FileHandle, buffer: Buffer, start: number, end: number): Promise<Buffer> {
  let filled = 0;
  while (filled < end - start) {
    const { bytesRead } = await handle.read(buffer, filled, end - start - filled, start + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  buffer.fill(0, filled, end - start);
  return buffer.subarray(0, end - start);
}

/**
 * Indexes the lines of `bytes`, which start at file offset `offset` and hold whole lines (at the
 * end of the file the last may lack its newline). The file's first line must be the header.
 */
function indexLines(state: IndexState, bytes: Buffer, offset: number, atEnd: boolean): string | undefined {
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(NEWLINE, start);
    const isLast = end < 0;
    if (isLast) end = bytes.length;
    state.line++;
    if (state.header === undefined) {
      const header = parseSessionHeader(bytes.toString("utf8", start, end));
      if (!header.ok) return header.error;
      state.header = header.value;
    } else indexLine({ bytes, offset, tree: state.tree, line: state.line, start, end, isLast: isLast && atEnd });
    start = end + 1;
  }
  return undefined;
}

type LineInput = {
  bytes: Buffer;
  offset: number;
  tree: SessionTree;
  line: number;
  start: number;
  end: number;
  isLast: boolean;
};

function indexLine({ bytes, offset, tree, line, start, end, isLast }: LineInput): void {
  // A crash can leave a run of NUL bytes where a write was lost; a good line may follow it.
  let from = start;
  while (from < end && bytes[from] === NUL) from++;
  if (from > start) tree.problems.push({ line, message: `${from - start} NUL bytes skipped` });
  if (from === end) return;
  const prefix = isLast ? undefined : readEntryPrefix(bytes, from, end);
  if (prefix && LAZY_ENTRY_TYPES.has(prefix.type)) {
    tree.addRange(prefix, line, offset + from, offset + end);
    return;
  }
  const text = bytes.toString("utf8", from, end);
  if (text.trim() === "") return;
  const parsed = parseSessionEntryLine(text);
  if (parsed.ok) tree.addEntry(parsed.value, line);
  else tree.problems.push(describeProblem(line, parsed.error, isLast));
}

function describeProblem(line: number, error: string, isLast: boolean): ReadProblem {
  if (isLast) return { line, message: "the last line is incomplete (a write was cut off); skipped" };
  return { line, message: `${error}; skipped` };
}

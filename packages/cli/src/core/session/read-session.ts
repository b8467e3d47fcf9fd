/**
 * Reading a session file: the header, then every line indexed by its tree fields. Damage is
 * reported, never "fixed" by rewriting: a torn last line is skipped (the writer later appends a
 * newline before its first entry), an unparseable line elsewhere is skipped with its line number.
 */
import { type FileHandle, open } from "node:fs/promises";
import { basename } from "node:path";
import { CliError } from "../errors.js";
import { LAZY_ENTRY_TYPES } from "./entry-types.js";
import { entryLinePrefix, readEntryPrefix } from "./line-format.js";
import { parseSessionEntryLine, parseSessionHeader } from "./parse-entry.js";
import { sessionIdFromFileName } from "./session-paths.js";
import { SessionTree } from "./session-tree.js";
import { type ReadProblem, SESSION_FORMAT_VERSION, type SessionHeader } from "./types.js";

/** A session file as read from disk. */
export type LoadedSession = {
  header: SessionHeader;
  tree: SessionTree;
  /** False when the file does not end with a newline: the next append must start with one. */
  endsWithNewline: boolean;
  /**
   * Why the file must not be continued in place although its entries were read: a header that
   * cannot be read (a placeholder stands in for it) or a newer format version. Undefined when fine.
   */
  headerProblem?: string;
};

const NEWLINE = 0x0a;
const NUL = 0;
/** Bytes read per call. The read buffer is reused, so reading the file costs no more memory than this. */
const CHUNK_SIZE = 4 * 1024 * 1024;

/**
 * A longer line is skipped as damaged (with the other bad lines' warning) instead of read: V8
 * cannot hold a string of about 512 M characters, and one such line made the whole session
 * unopenable.
 */
export const MAX_SESSION_LINE_BYTES = 256 * 1024 * 1024;

export type ReadOptions = {
  /** Bytes read per call (default 4 MiB). Tests set it small to put lines across reads. */
  chunkSize?: number;
  /** Lines above this many bytes are skipped as damaged (default {@link MAX_SESSION_LINE_BYTES}). */
  maxLineBytes?: number;
};

/**
 * Reads and indexes a session file; never modifies it. A damaged header or a newer format version
 * does not hide the valid entries: they are read and `headerProblem` says why the file must not
 * be appended to. Throws a `CliError` ("session_not_found", "session_unreadable",
 * "session_invalid") when the file is missing, unreadable or holds no entry.
 */
export async function readSessionFile(path: string, options: ReadOptions = {}): Promise<LoadedSession> {
  let loaded: Awaited<ReturnType<typeof readFromHandle>>;
  try {
    const handle = await open(path, "r");
    try {
      loaded = await readFromHandle(
        handle,
        options.chunkSize ?? CHUNK_SIZE,
        options.maxLineBytes ?? MAX_SESSION_LINE_BYTES,
      );
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
  if (loaded.value.headerProblem !== undefined) loaded.value.header.id ||= idFromPath(path);
  return loaded.value;
}

/**
 * How the file is read depends on a look at its tail. With a compaction there, most lines will
 * stay unparsed: one pass indexes every line by its tree fields and keeps the bytes of the lazy
 * ones, which `buildContext` parses when it asks for the branch. Without one, the branch is likely
 * most of the file, so the one pass parses every line as it goes through a reused buffer: an
 * index-then-parse split would decode the context's lines twice, and the bytes of the few other
 * lines are not worth a second read. Either way the tree and the context are the same.
 */
async function readFromHandle(handle: FileHandle, chunkSize: number, maxLineBytes: number): Promise<ReadResult> {
  const size = (await handle.stat()).size;
  const scratch = { buffer: Buffer.allocUnsafe(Math.min(chunkSize, size + 1)) };
  const tail = await readRange(handle, scratch.buffer, Math.max(0, size - chunkSize), size);
  const chunks: ReadChunk[] | undefined = tail.includes(COMPACTION_PREFIX) ? [] : undefined;
  const tree = new SessionTree();
  const state: IndexState = {
    tree,
    header: undefined,
    line: 0,
    lastByte: undefined,
    lazy: chunks !== undefined,
    maxLineBytes,
  };
  await indexFile(handle, state, scratch, chunks);
  if (state.header === undefined) return { ok: false, error: "the file is empty" };
  if (state.headerProblem !== undefined && tree.size === 0) return { ok: false, error: state.headerProblem };
  // Kept bytes are parsed on first use, when `buildContext` asks for the branch.
  for (const chunk of chunks ?? []) tree.load(tree.rowsOnDisk(chunk.rows), chunk.bytes, chunk.start, () => false);
  tree.settle(tree.lastId());
  const value: LoadedSession = { header: state.header, tree, endsWithNewline: state.lastByte === NEWLINE };
  if (state.headerProblem !== undefined) value.headerProblem = state.headerProblem;
  return { ok: true, value };
}

const COMPACTION_PREFIX = entryLinePrefix("compaction");

type ReadResult = { ok: true; value: LoadedSession } | { ok: false; error: string };
type IndexState = {
  tree: SessionTree;
  header: SessionHeader | undefined;
  headerProblem?: string;
  line: number;
  lastByte: number | undefined;
  /** Keep the lines of lazy entry types as byte ranges (parsed on first use) rather than parse them now. */
  lazy: boolean;
  maxLineBytes: number;
};
type Scratch = { buffer: Buffer };
/** Bytes kept from the first pass: file offset `start` on, with rows [rows[0], rows[1]). */
type ReadChunk = { bytes: Buffer; start: number; rows: [number, number] };

/**
 * The one pass: reads whole lines a buffer at a time and indexes them (or, not `state.lazy`,
 * parses them). With `chunks`, each buffer is new and kept there; without, one buffer is reused.
 */
async function indexFile(
  handle: FileHandle,
  state: IndexState,
  scratch: Scratch,
  chunks: ReadChunk[] | undefined,
): Promise<void> {
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
    if (state.lazy) indexLines(state, buffer.subarray(0, cut), position, atEnd);
    else parseLines(state, buffer.toString("utf8", 0, cut), atEnd);
    if (chunks !== undefined && cut > 0)
      chunks.push({ bytes: buffer.subarray(0, cut), start: position, rows: [firstRow, state.tree.rowCount] });
    if (atEnd) return;
    position += cut;
    carried = filled - cut;
    if (carried === buffer.length && carried * 2 > state.maxLineBytes) {
      // Too long to hold: read past it without keeping it, and report it like any damaged line.
      const skipped = await skipLine(handle, position, Math.min(buffer.length, CHUNK_SIZE));
      state.line++;
      state.tree.problems.push({
        line: state.line,
        message: `the line is ${formatMegabytes(skipped.bytes)}, above the ${formatMegabytes(state.maxLineBytes)} a session line may have; skipped as damaged`,
      });
      if (skipped.atEnd) {
        state.lastByte = skipped.lastByte;
        return;
      }
      position += skipped.bytes;
      carried = 0;
      // In the keeping pass the buffer's first part belongs to `chunks` now.
      if (chunks !== undefined) scratch.buffer = Buffer.allocUnsafe(buffer.length);
      continue;
    }
    // A line longer than the buffer is carried whole into one twice the size.
    const size = carried === buffer.length ? 2 * buffer.length : buffer.length;
    if (chunks === undefined && size === buffer.length) buffer.copy(buffer, 0, cut, filled);
    else {
      scratch.buffer = Buffer.allocUnsafe(size);
      buffer.copy(scratch.buffer, 0, cut, filled);
    }
  }
}

/** Reads from `start` through the next newline (or the end) into a throw-away buffer: its length, and whether the file ended. */
async function skipLine(
  handle: FileHandle,
  start: number,
  bufferSize: number,
): Promise<{ bytes: number; atEnd: boolean; lastByte: number | undefined }> {
  const buffer = Buffer.allocUnsafe(bufferSize);
  let bytes = 0;
  let lastByte: number | undefined;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start + bytes);
    if (bytesRead === 0) return { bytes, atEnd: true, lastByte };
    const newline = buffer.subarray(0, bytesRead).indexOf(NEWLINE);
    if (newline >= 0) return { bytes: bytes + newline + 1, atEnd: false, lastByte: NEWLINE };
    bytes += bytesRead;
    lastByte = buffer[bytesRead - 1];
  }
}

function formatMegabytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.round(bytes / 1024)} KB`;
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
function indexLines(state: IndexState, bytes: Buffer, offset: number, atEnd: boolean): void {
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(NEWLINE, start);
    const isLast = end < 0;
    if (isLast) end = bytes.length;
    state.line++;
    if (state.header !== undefined || takeHeader(state, bytes.toString("utf8", start, end)))
      indexLine(state, bytes, offset, start, end, isLast && atEnd);
    start = end + 1;
  }
}

/** Reads line 1 as the header; true when it is an entry that lost its header (index it as one). */
function takeHeader(state: IndexState, text: string): boolean {
  const header = parseSessionHeader(text);
  if (header.ok) {
    state.header = header.value;
    return false;
  }
  state.headerProblem = header.error;
  state.header = salvageHeader(text);
  // A lost header can leave the first entry on line 1.
  return text.replace(/^\0+/, "").startsWith('{"type":"') && !text.includes('"type":"session"');
}

/** The fields of a header that failed validation, as far as they can be read. */
function salvageHeader(text: string): SessionHeader {
  let value: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      value = parsed as Record<string, unknown>;
  } catch {
    // unreadable: every field falls back
  }
  const text_ = (field: string) => (typeof value[field] === "string" ? (value[field] as string) : "");
  const version = typeof value.version === "number" ? value.version : SESSION_FORMAT_VERSION;
  const timestamp = text_("timestamp") || new Date(0).toISOString();
  return { type: "session", version, id: text_("id"), timestamp, cwd: text_("cwd") };
}

/** The session id in a session file's name, or the name itself. */
function idFromPath(path: string): string {
  const name = basename(path);
  return sessionIdFromFileName(name) ?? name.replace(/\.jsonl$/, "");
}

// Positional parameters: this runs once per line, and an object per call costs GC time.
function indexLine(
  state: IndexState,
  bytes: Buffer,
  offset: number,
  start: number,
  end: number,
  isLast: boolean,
): void {
  const { tree, line } = state;
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
  addParsed(tree, bytes.toString("utf8", from, end), line, isLast);
}

function addParsed(tree: SessionTree, text: string, line: number, isLast: boolean): void {
  if (text.trim() === "") return;
  const parsed = parseSessionEntryLine(text);
  if (parsed.ok) tree.addEntry(parsed.value, line);
  else tree.problems.push(describeProblem(line, parsed.error, isLast));
}

/**
 * `indexLines` for a file read without lazy lines: the buffer's whole lines are decoded in one
 * call and every line is parsed now. Measured on 10,000 lines: a string per line ran the young
 * generation through several more scavenges and a full collection; one large string (allocated
 * outside the young generation) and a slice of it per line did neither.
 */
function parseLines(state: IndexState, text: string, atEnd: boolean): void {
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    const isLast = end < 0;
    if (isLast) end = text.length;
    state.line++;
    if (state.header !== undefined || takeHeader(state, text.slice(start, end))) {
      let from = start;
      while (from < end && text.charCodeAt(from) === NUL) from++;
      if (from > start) state.tree.problems.push({ line: state.line, message: `${from - start} NUL bytes skipped` });
      if (from < end) addParsed(state.tree, text.slice(from, end), state.line, isLast && atEnd);
    }
    start = end + 1;
  }
}

function describeProblem(line: number, error: string, isLast: boolean): ReadProblem {
  if (isLast) return { line, message: "the last line is incomplete (a write was cut off); skipped" };
  return { line, message: `${error}; skipped` };
}

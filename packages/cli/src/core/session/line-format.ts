/**
 * The layout of an entry line as gyre writes it, and the reader that relies on it: the tree
 * fields come first in a fixed order (`{"type":"…","id":"…","parentId":…,"timestamp":…`), so a
 * line can be indexed from its first bytes without parsing the rest (resume stays linear in bytes).
 */
import { ENTRY_TYPE_NAMES } from "./entry-types.js";
import type { SessionEntry } from "./types.js";

/** One entry as its line (without the newline), tree fields first; the one writer of entry lines. */
export function serializeEntryLine(entry: SessionEntry): string {
  const { type, id, parentId, timestamp, ...rest } = entry;
  return JSON.stringify({ type, id, parentId, timestamp, ...rest });
}

/** How every line of entry type `type` starts (a quick test for, say, a compaction in a tail). */
export function entryLinePrefix(type: SessionEntry["type"]): string {
  return `{"type":"${type}"`;
}

// Plain byte arrays and JS loops: per-line Buffer method calls (compare, toString, indexOf) cost
// ~0.5 µs each across the native boundary, which dominated resume time at 50,000 lines.
const prefixStart = bytesOf('{"type":"');
const idPart = bytesOf('","id":"');
const parentPart = bytesOf('","parentId":');
const nullPart = bytesOf("null");
const QUOTE = 0x22;
const COMMA = 0x2c;
const CLOSE = 0x7d;
const entryTypes = ENTRY_TYPE_NAMES.map((name) => ({ name, bytes: bytesOf(name) }));

function bytesOf(text: string): number[] {
  return [...Buffer.from(text, "latin1")];
}

/** The tree fields of a line, read without parsing the whole line. */
export type EntryPrefix = { type: string; id: string; parentId: string | null };

/**
 * Reads `type`, `id` and `parentId` from a line in the exact layout gyre writes
 * (`{"type":"…","id":"xxxxxxxx","parentId":…,`), without JSON-parsing the rest. Returns
 * undefined for any other layout (hand-edited, other writer, unknown type, damaged); the caller
 * then parses the whole line. This keeps resume linear in bytes, not in parsed objects.
 */
export function readEntryPrefix(buffer: Uint8Array, start: number, end: number): EntryPrefix | undefined {
  if (end - start < 48 || buffer[end - 1] !== CLOSE || !matches(buffer, start, prefixStart)) return undefined;
  let at = start + prefixStart.length;
  let type: (typeof entryTypes)[number] | undefined;
  for (const candidate of entryTypes)
    if (buffer[at + candidate.bytes.length] === QUOTE && matches(buffer, at, candidate.bytes)) {
      type = candidate;
      break;
    }
  if (!type) return undefined;
  at += type.bytes.length;
  if (!matches(buffer, at, idPart)) return undefined;
  at += idPart.length;
  const id = readHexId(buffer, at);
  at += 8;
  if (id === undefined || !matches(buffer, at, parentPart)) return undefined;
  at += parentPart.length;
  let parentId: string | null;
  if (buffer[at] === QUOTE && buffer[at + 9] === QUOTE) {
    const parent = readHexId(buffer, at + 1);
    if (parent === undefined) return undefined;
    parentId = parent;
    at += 10;
  } else if (matches(buffer, at, nullPart)) {
    parentId = null;
    at += 4;
  } else return undefined;
  return buffer[at] === COMMA ? { type: type.name, id, parentId } : undefined;
}

function matches(buffer: Uint8Array, at: number, part: number[]): boolean {
  for (let index = 0; index < part.length; index++) if (buffer[at + index] !== part[index]) return false;
  return true;
}

/** Eight lowercase hex digits at `at` as a string, or undefined. */
function readHexId(buffer: Uint8Array, at: number): string | undefined {
  let id = "";
  for (let index = at; index < at + 8; index++) {
    const byte = buffer[index] ?? 0;
    if (!((byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66))) return undefined;
    id += String.fromCharCode(byte);
  }
  return id;
}

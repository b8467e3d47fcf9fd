/**
 * Validation of session records. Each function returns a result instead of throwing, so one bad
 * line never stops the reader.
 */
import { type ParseResult, SESSION_FORMAT_VERSION, type SessionEntry, type SessionHeader } from "./types.js";

type Json = Record<string, unknown>;

const thinkingLevels = new Set(["off", "low", "medium", "high"]);
const roles = new Set(["user", "assistant", "toolResult", "custom"]);

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}

/**
 * Parses the header line. An unknown future version is an error whose text tells the user to
 * update gyre; the caller must refuse the file rather than guess.
 */
export function parseSessionHeader(text: string): ParseResult<SessionHeader> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail("line 1 is not a session header (not JSON)");
  }
  if (!isObject(value) || value.type !== "session") return fail('line 1 is not a session header (no "type":"session")');
  const { version, id, timestamp, cwd, parentSession } = value;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1)
    return fail("the session header has no valid version");
  if (version > SESSION_FORMAT_VERSION)
    return fail(
      `the session uses format version ${version}, but this gyre reads only version ${SESSION_FORMAT_VERSION}; update gyre to open it`,
    );
  if (typeof id !== "string" || id === "") return fail("the session header has no id");
  if (typeof timestamp !== "string") return fail("the session header has no timestamp");
  if (typeof cwd !== "string") return fail("the session header has no cwd");
  if (parentSession !== undefined && typeof parentSession !== "string")
    return fail("the session header's parentSession is not a string");
  const header: SessionHeader = { type: "session", version, id, timestamp, cwd };
  if (parentSession !== undefined) header.parentSession = parentSession;
  return { ok: true, value: header };
}

/** Parses one entry line (JSON text) into a validated entry. */
export function parseSessionEntryLine(text: string): ParseResult<SessionEntry> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail(describeUnparseable(text));
  }
  return validateSessionEntry(value);
}

function describeUnparseable(text: string): string {
  if (text.includes("\u0000")) return "the line holds NUL bytes (a disk or crash artefact), not JSON";
  return `the line is not valid JSON: ${JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text)}`;
}

/** Checks that a parsed value is a well-formed entry of a known type. */
export function validateSessionEntry(value: unknown): ParseResult<SessionEntry> {
  if (!isObject(value)) return fail("the line is not a JSON object");
  const { type, id, parentId, timestamp } = value;
  if (typeof type !== "string") return fail('the entry has no "type"');
  if (typeof id !== "string" || id === "") return fail(`the ${type} entry has no id`);
  if (parentId !== null && typeof parentId !== "string") return fail(`entry ${id} has no valid parentId`);
  if (typeof timestamp !== "string") return fail(`entry ${id} has no timestamp`);
  const problem = checkFields(type, value);
  if (problem !== undefined) return fail(`entry ${id}: ${problem}`);
  // The checks above established the shape of the known type.
  return { ok: true, value: value as SessionEntry };
}

function checkFields(type: string, value: Json): string | undefined {
  switch (type) {
    case "message": {
      const message = value.message;
      if (!isObject(message) || typeof message.role !== "string" || !roles.has(message.role))
        return "message has no valid role";
      if (message.content === undefined) return "message has no content";
      return undefined;
    }
    case "model_change":
      return typeof value.provider === "string" && typeof value.modelId === "string"
        ? undefined
        : "model_change needs provider and modelId";
    case "thinking_level_change":
      return typeof value.thinkingLevel === "string" && thinkingLevels.has(value.thinkingLevel)
        ? undefined
        : "thinking_level_change has an unknown thinkingLevel";
    case "compaction":
      return typeof value.summary === "string" &&
        typeof value.firstKeptEntryId === "string" &&
        typeof value.tokensBefore === "number"
        ? undefined
        : "compaction needs summary, firstKeptEntryId and tokensBefore";
    case "branch_summary":
      return typeof value.summary === "string" && typeof value.fromId === "string"
        ? undefined
        : "branch_summary needs fromId and summary";
    case "label":
      return typeof value.targetId === "string" && (value.label === undefined || typeof value.label === "string")
        ? undefined
        : "label needs targetId and a string label";
    case "session_info":
      return typeof value.name === "string" ? undefined : "session_info needs a name";
    case "custom":
      return typeof value.customType === "string" ? undefined : "custom needs a customType";
    case "checkpoint":
      return checkCheckpoint(value);
    default:
      return `unknown entry type "${type}"`;
  }
}

const checkpointReasons = new Set(["turn", "turn_end", "rewind"]);

function checkCheckpoint(value: Json): string | undefined {
  if (typeof value.ref !== "string" || !/^[0-9a-f]{40,64}$/.test(value.ref)) return "checkpoint needs a tree id in ref";
  if (!Array.isArray(value.files) || !value.files.every((file) => typeof file === "string"))
    return "checkpoint needs files as a list of paths";
  if (typeof value.reason !== "string" || !checkpointReasons.has(value.reason))
    return "checkpoint has an unknown reason";
  if (typeof value.workspace !== "string") return "checkpoint needs a workspace";
  const skipped = value.skipped;
  if (
    skipped !== undefined &&
    !(Array.isArray(skipped) && skipped.every((file) => isObject(file) && typeof file.path === "string"))
  )
    return "checkpoint's skipped must list objects with a path";
  return undefined;
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
const entryTypes = [
  "message",
  "model_change",
  "thinking_level_change",
  "compaction",
  "branch_summary",
  "label",
  "session_info",
  "custom",
  "checkpoint",
].map((name) => ({ name, bytes: bytesOf(name) }));

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

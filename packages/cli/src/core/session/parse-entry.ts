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
    default:
      return `unknown entry type "${type}"`;
  }
}

const prefixStart = Buffer.from('{"type":"');
const idPart = Buffer.from('","id":"');
const parentPart = Buffer.from('","parentId":');
const QUOTE = 0x22;
const COMMA = 0x2c;
const CLOSE = 0x7d;

/** The tree fields of a line, read without parsing the whole line. */
export type EntryPrefix = { type: string; id: string; parentId: string | null };

/**
 * Reads `type`, `id` and `parentId` from a line in the exact layout gyre writes
 * (`{"type":"…","id":"xxxxxxxx","parentId":…,`), without JSON-parsing the rest. Returns
 * undefined for any other layout (hand-edited, other writer, damaged); the caller then parses
 * the whole line. This keeps resume linear in bytes, not in parsed objects.
 */
export function readEntryPrefix(buffer: Buffer, start: number, end: number): EntryPrefix | undefined {
  if (end - start < 48 || buffer[end - 1] !== CLOSE || !startsWith(buffer, start, prefixStart)) return undefined;
  let at = start + prefixStart.length;
  const typeEnd = buffer.indexOf(QUOTE, at);
  if (typeEnd < 0 || typeEnd - at > 32) return undefined;
  const type = buffer.toString("latin1", at, typeEnd);
  at = typeEnd;
  if (!startsWith(buffer, at, idPart)) return undefined;
  at += idPart.length;
  const id = buffer.toString("latin1", at, at + 8);
  at += 8;
  if (!startsWith(buffer, at, parentPart)) return undefined;
  at += parentPart.length;
  let parentId: string | null;
  if (buffer[at] === QUOTE && buffer[at + 9] === QUOTE) {
    parentId = buffer.toString("latin1", at + 1, at + 9);
    at += 10;
  } else if (buffer.toString("latin1", at, at + 4) === "null") {
    parentId = null;
    at += 4;
  } else return undefined;
  if (buffer[at] !== COMMA || !isHexId(id) || (parentId !== null && !isHexId(parentId))) return undefined;
  return { type, id, parentId };
}

function startsWith(buffer: Buffer, at: number, part: Buffer): boolean {
  return buffer.compare(part, 0, part.length, at, at + part.length) === 0;
}

const hexId = /^[0-9a-f]{8}$/;

/** Whether `id` has the form gyre writes (8 lowercase hex digits). */
export function isHexId(id: string): boolean {
  return hexId.test(id);
}

/**
 * Validation of session records. Each function returns a result instead of throwing, so one bad
 * line never stops the reader.
 */
import { ENTRY_TYPES, isEntryType, isJsonObject } from "./entry-types.js";
import { type ParseResult, SESSION_FORMAT_VERSION, type SessionEntry, type SessionHeader } from "./types.js";

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
  if (!isJsonObject(value) || value.type !== "session")
    return fail('line 1 is not a session header (no "type":"session")');
  const { version, id, timestamp, cwd, parentSession, mode } = value;
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
  // A mode is only a hint for listings: a wrong type is dropped rather than failing the file.
  if (typeof mode === "string") header.mode = mode;
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
  if (!isJsonObject(value)) return fail("the line is not a JSON object");
  const { type, id, parentId, timestamp } = value;
  if (typeof type !== "string") return fail('the entry has no "type"');
  if (typeof id !== "string" || id === "") return fail(`the ${type} entry has no id`);
  if (parentId !== null && typeof parentId !== "string") return fail(`entry ${id} has no valid parentId`);
  if (typeof timestamp !== "string") return fail(`entry ${id} has no timestamp`);
  if (!isEntryType(type)) return fail(`entry ${id}: unknown entry type "${type}"`);
  const problem = ENTRY_TYPES[type].check(value);
  if (problem !== undefined) return fail(`entry ${id}: ${problem}`);
  // The checks above established the shape of the known type.
  return { ok: true, value: value as SessionEntry };
}

/**
 * The placeholder that stands for tool-call arguments too large to keep (a 50 MB `write`). The
 * provider layer puts it in place of arguments it stopped accumulating while streaming
 * (`StreamOptions.maxToolArgumentBytes`), and the agent loop puts it in place of oversized
 * arguments that arrived whole; either way the loop answers the call with an error result.
 */
import { parsePartialJson } from "./partial-json.js";

/** The key of the placeholder that replaces dropped arguments. */
export const DROPPED_ARGUMENTS_KEY = "gyreDroppedArguments";

/** What the placeholder records about the arguments it replaced. */
export type DroppedArguments = { tool: string; bytes: number; limitBytes: number; note: string };

/** Short scalar fields (a path, a flag) are kept beside the placeholder so UIs and the model see what the call was for. */
const KEPT_FIELD_CHARS = 200;
const KEPT_FIELDS = 8;

/** UTF-8 length without encoding a copy (this package runs outside Node too, so no Buffer). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    // A surrogate pair is 4 bytes: 2 per half.
    bytes += code < 0x80 ? 1 : code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 2 : 3;
  }
  return bytes;
}

/**
 * The arguments that replace a dropped call's: up to 8 short scalar fields of `args` (taken from
 * what was parsed, or from the head of the streamed text) plus the `gyreDroppedArguments` record.
 */
export function createDroppedArguments(
  tool: string,
  bytes: number,
  limitBytes: number,
  args: Record<string, unknown> = {},
): Record<string, unknown> {
  const dropped: DroppedArguments = {
    tool,
    bytes,
    limitBytes,
    note: `The arguments (${bytes} bytes of JSON) were above the ${limitBytes}-byte limit for one tool call, so gyre dropped them and did not run the call.`,
  };
  return { ...keptFields(args), [DROPPED_ARGUMENTS_KEY]: dropped };
}

/**
 * The fields readable in the first part of a call's argument text (`{"path":"a.txt","content":"…`),
 * without the last one, which the cut may have truncated.
 */
export function readArgumentsHead(head: string): Record<string, unknown> {
  let parsed: Record<string, unknown>;
  try {
    parsed = parsePartialJson(head);
  } catch {
    return {};
  }
  const entries = Object.entries(parsed);
  return Object.fromEntries(entries.slice(0, -1));
}

/** The drop record of arguments that were replaced, or undefined for ordinary arguments. */
export function readDroppedArguments(args: Record<string, unknown>): DroppedArguments | undefined {
  const value = args[DROPPED_ARGUMENTS_KEY];
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Partial<DroppedArguments>;
  if (typeof record.bytes !== "number" || typeof record.limitBytes !== "number") return undefined;
  return {
    tool: typeof record.tool === "string" ? record.tool : "",
    bytes: record.bytes,
    limitBytes: record.limitBytes,
    note: typeof record.note === "string" ? record.note : "",
  };
}

function keptFields(args: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  let count = 0;
  for (const [key, value] of Object.entries(args)) {
    if (count >= KEPT_FIELDS) break;
    if (key.length > KEPT_FIELD_CHARS || key === DROPPED_ARGUMENTS_KEY) continue;
    const short =
      typeof value === "number" ||
      typeof value === "boolean" ||
      (typeof value === "string" && value.length <= KEPT_FIELD_CHARS);
    if (!short) continue;
    kept[key] = value;
    count++;
  }
  return kept;
}

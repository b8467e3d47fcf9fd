/** The top-level keys a tool-call header shows while the arguments still stream. */
const headerKeys = new Set(["path", "command"]);

/**
 * The `path` or `command` string of a tool call's argument text that is still streaming, from
 * one pass over its top level that stops at the first of them (a 200 KB `write` costs a scan of
 * its first few bytes). A value still being streamed comes back as far as it arrived. Run at
 * render time, never per delta.
 */
export function scanStreamingArguments(raw: string): Record<string, string> {
  let depth = 0;
  let lastKey: string | undefined;
  let expectingValue = false;
  for (let at = 0; at < raw.length; at++) {
    const char = raw[at];
    if (char === '"') {
      const end = findStringEnd(raw, at + 1);
      const text = decode(raw.slice(at + 1, end ?? raw.length));
      if (depth === 1 && expectingValue && lastKey !== undefined && headerKeys.has(lastKey)) return { [lastKey]: text };
      if (depth === 1 && !expectingValue) lastKey = text;
      expectingValue = false;
      if (end === undefined) break;
      at = end;
    } else if (char === ":") expectingValue = depth === 1;
    else if (char === "{" || char === "[") {
      depth++;
      expectingValue = false;
    } else if (char === "}" || char === "]") depth--;
    else if (char === ",") expectingValue = false;
  }
  return {};
}

/** The index of the quote that closes a string whose text starts at `from`, if it arrived. */
function findStringEnd(raw: string, from: number): number | undefined {
  for (let at = from; at < raw.length; at++) {
    if (raw[at] === "\\") at++;
    else if (raw[at] === '"') return at;
  }
  return undefined;
}

/** A JSON string's text, with escapes resolved; a cut escape at the end is dropped. */
function decode(body: string): string {
  if (!body.includes("\\")) return body;
  try {
    return JSON.parse(`"${body.replace(/\\(u[0-9a-fA-F]{0,3})?$/, "")}"`) as string;
  } catch {
    return body;
  }
}

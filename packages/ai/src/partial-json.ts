/**
 * Best-effort parse of an incomplete JSON object (for showing streaming tool arguments).
 * Closes open strings, arrays and objects, completes a `true`/`false`/`null` cut mid-word and
 * drops the unfinished tail of a number; returns `{}` when nothing usable is there yet.
 */
export function parsePartialJson(text: string): Record<string, unknown> {
  const closers: string[] = [];
  let inString = false;
  let escaped = false;
  for (const char of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (char === "\\") escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{") closers.push("}");
    else if (char === "[") closers.push("]");
    else if (char === "}" || char === "]") closers.pop();
  }
  let candidate = text;
  if (inString) candidate += escaped ? '\\"' : '"';
  else candidate = completeCutLiteral(candidate);
  candidate = candidate.replace(/[,:]\s*$/, "");
  candidate += closers.reverse().join("");
  for (const attempt of [candidate, candidate.replace(/,\s*"[^"]*"\s*(?=[}\]]+$)/, "")]) {
    try {
      const parsed: unknown = JSON.parse(attempt);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // try the next repair
    }
  }
  return {};
}

const literals = ["true", "false", "null"];

/** `text` with a value cut at its end made whole: `tr` → `true`, `1.` → `1`, a lone `-` removed. */
function completeCutLiteral(text: string): string {
  const cut = /[:[,]\s*([a-z]+|-?[0-9]*\.?[0-9]*(?:[eE][+-]?)?)$/.exec(text);
  const tail = cut?.[1];
  if (!tail) return text;
  const head = text.slice(0, text.length - tail.length);
  const literal = literals.find((word) => word.startsWith(tail));
  if (literal) return head + literal;
  if (/^[a-z]/.test(tail)) return text;
  const number = tail.replace(/[.eE+-]+$/, "");
  return head + (number === "" || number === "-" ? "" : number);
}

import type { GeminiPartialArg } from "./wire.js";

type PathToken = string | number;

/**
 * Applies one Vertex streamed-argument fragment (`partialArgs[]` entry) to `target`: the value
 * goes to its `jsonPath` (`$.recipe.steps[0]`, `$['a.b']`), creating objects and arrays on the
 * way; string values concatenate with what is already there (strings arrive in pieces, closed by
 * an empty `stringValue`). Fragments with an unreadable path or no value are ignored.
 */
export function applyPartialArgument(target: Record<string, unknown>, argument: GeminiPartialArg): void {
  const tokens = parseJsonPath(argument.jsonPath ?? "");
  if (!tokens || tokens.length === 0) return;
  let value: unknown;
  if (typeof argument.stringValue === "string") value = argument.stringValue;
  else if (typeof argument.numberValue === "number") value = argument.numberValue;
  else if (typeof argument.boolValue === "boolean") value = argument.boolValue;
  else if ("nullValue" in argument) value = null;
  else return;
  let container: Record<string, unknown> | unknown[] = target;
  for (let index = 0; index < tokens.length - 1; index++) {
    const token = tokens[index] as PathToken;
    const next = tokens[index + 1] as PathToken;
    const existing = read(container, token);
    if (existing !== null && typeof existing === "object") {
      container = existing as Record<string, unknown> | unknown[];
    } else {
      const created: Record<string, unknown> | unknown[] = typeof next === "number" ? [] : {};
      write(container, token, created);
      container = created;
    }
  }
  const last = tokens.at(-1) as PathToken;
  const previous = read(container, last);
  write(container, last, typeof value === "string" && typeof previous === "string" ? previous + value : value);
}

/** `$.a.b[2]['c.d']` → `["a", "b", 2, "c.d"]`; undefined when the path is not of that form. */
export function parseJsonPath(path: string): PathToken[] | undefined {
  if (!path.startsWith("$")) return undefined;
  const tokens: PathToken[] = [];
  const pattern = /\.([^.[\]]+)|\[(\d+)\]|\[(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]/y;
  pattern.lastIndex = 1;
  while (pattern.lastIndex < path.length) {
    const match = pattern.exec(path);
    if (!match) return undefined;
    if (match[1] !== undefined) tokens.push(match[1]);
    else if (match[2] !== undefined) tokens.push(Number(match[2]));
    else tokens.push((match[3] ?? match[4] ?? "").replace(/\\(.)/g, "$1"));
  }
  return tokens;
}

function read(container: Record<string, unknown> | unknown[], token: PathToken): unknown {
  if (Array.isArray(container)) return typeof token === "number" ? container[token] : undefined;
  return Object.hasOwn(container, token) ? container[String(token)] : undefined;
}

function write(container: Record<string, unknown> | unknown[], token: PathToken, value: unknown): void {
  if (Array.isArray(container)) {
    if (typeof token === "number") container[token] = value;
  } else {
    container[String(token)] = value;
  }
}

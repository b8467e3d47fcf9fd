/**
 * JSON for request bodies. `JSON.stringify` writes a lone UTF-16 surrogate (half an emoji, left
 * by a cut in a tool's output) as a `\udXXX` escape, and providers reject the whole request for
 * it; whole pairs it writes as they are. So every such escape left in the text is a lone half.
 */

/** An escape of a surrogate code unit, preceded by an even number of backslashes (so not itself escaped). */
const loneSurrogateEscape = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/gi;

/** `JSON.stringify(value)` with every lone surrogate replaced by U+FFFD. */
export function stringifyRequest(value: unknown): string {
  return replaceLoneSurrogateEscapes(JSON.stringify(value));
}

/** JSON text with every escaped lone surrogate replaced by the escape of U+FFFD. */
export function replaceLoneSurrogateEscapes(json: string): string {
  // Most requests have none; the test is cheaper than a replace that allocates.
  if (!json.includes("\\ud") && !json.includes("\\uD")) return json;
  return json.replace(loneSurrogateEscape, "$1\\ufffd");
}

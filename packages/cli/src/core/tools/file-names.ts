/**
 * File names that are not valid UTF-8 (a Latin-1 `caf\xE9.txt` from an old archive). Linux names
 * are bytes; Node's string paths decode them lossily (U+FFFD), so such a file could neither be
 * shown faithfully nor opened again. Two forms keep the bytes:
 *
 * - Inside the tools, a path is a string in which each byte that is not part of valid UTF-8 is a
 *   lone surrogate U+DC80–U+DCFF (Python's "surrogateescape"). Valid UTF-8 never decodes to a lone
 *   surrogate, so the form is exact and every normal name is unchanged. `toNodePath` turns it into
 *   the Buffer node:fs needs.
 * - Towards the model, each such byte is written `\xHH` (`caf\xE9.txt`), the notation of git's
 *   quoted paths and of most languages' string escapes; so are control characters (a newline or
 *   an ESC in a name), which would otherwise split a listing or reach a terminal raw. A path the
 *   model sends back with `\xHH` names those bytes, unless a file with that literal name exists
 *   (`parseShownPath`).
 */

const ESCAPED_BYTE = /[\udc80-\udcff]/u;
const SHOWN_CHARS = /[\u0000-\u001f\u007f]|[\udc80-\udcff]/u;
const SHOWN_CHARS_ALL = /[\u0000-\u001f\u007f]|[\udc80-\udcff]/gu;
// Raw bytes 80–FF, and control characters 01–1F and 7F (a NUL can be in no name).
const SHOWN_ESCAPE = /\\x([89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F]|1[0-9a-fA-F]|7[fF])/;
const SHOWN_ESCAPES = /\\x([89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F]|1[0-9a-fA-F]|7[fF])/g;

/** Whether the path holds bytes that are not UTF-8 (escaped as lone surrogates). */
export function hasRawBytes(path: string): boolean {
  return ESCAPED_BYTE.test(path);
}

/** The path for node:fs: the string itself, or the exact bytes when it holds raw bytes. */
export function toNodePath(path: string): string | Buffer {
  return hasRawBytes(path) ? encodeFileName(path) : path;
}

/** The bytes of a path in the tools' form (raw bytes for escaped ones, UTF-8 for the rest). */
export function encodeFileName(path: string): Buffer {
  const parts: Buffer[] = [];
  for (const piece of path.split(/([\udc80-\udcff])/u)) {
    if (piece.length === 0) continue;
    parts.push(hasRawBytes(piece) ? Buffer.of(piece.charCodeAt(0) - 0xdc00) : Buffer.from(piece, "utf8"));
  }
  return Buffer.concat(parts);
}

/** A name or path as node:fs returned it in bytes, in the tools' form (exact, reversible). */
export function decodeFileName(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fast = buffer.toString("utf8");
  // U+FFFD marks a byte the decoder could not place (or a real U+FFFD, which the slow path keeps).
  if (!fast.includes("\ufffd")) return fast;
  let text = "";
  let index = 0;
  while (index < buffer.length) {
    const length = utf8SequenceLength(buffer, index);
    if (length === 0) {
      text += String.fromCharCode(0xdc00 + (buffer[index] as number));
      index++;
    } else {
      text += buffer.toString("utf8", index, index + length);
      index += length;
    }
  }
  return text;
}

/** How a path in the tools' form is shown to the model: raw bytes and control characters as `\xHH`. */
export function showPath(path: string): string {
  if (!SHOWN_CHARS.test(path)) return path;
  return path.replace(SHOWN_CHARS_ALL, (char) => {
    const code = char.charCodeAt(0);
    const byte = code >= 0xdc00 ? code - 0xdc00 : code;
    return `\\x${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  });
}

/**
 * The tools' form of a path the model wrote with `\xHH` escapes (HH 80–FF: a raw byte; 01–1F or
 * 7F: that control character), or undefined when it has none. Callers try the literal path first:
 * a file really named `a\xE9` wins.
 */
export function parseShownPath(path: string): string | undefined {
  if (!SHOWN_ESCAPE.test(path)) return undefined;
  return path.replace(SHOWN_ESCAPES, (_match, hex: string) => {
    const byte = Number.parseInt(hex, 16);
    return String.fromCharCode(byte >= 0x80 ? 0xdc00 + byte : byte);
  });
}

/** Length of the valid UTF-8 sequence starting at `index`, or 0 when the byte starts none. */
function utf8SequenceLength(bytes: Buffer, index: number): number {
  const lead = bytes[index] as number;
  if (lead < 0x80) return 1;
  let length: number;
  let low = 0x80;
  let high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    // No overlong forms, no UTF-16 surrogates encoded as UTF-8.
    if (lead === 0xe0) low = 0xa0;
    if (lead === 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead === 0xf0) low = 0x90;
    if (lead === 0xf4) high = 0x8f;
  } else return 0;
  if (index + length > bytes.length) return 0;
  for (let offset = 1; offset < length; offset++) {
    const byte = bytes[index + offset] as number;
    const [min, max] = offset === 1 ? [low, high] : [0x80, 0xbf];
    if (byte < min || byte > max) return 0;
  }
  return length;
}

/**
 * Tool-call id normalisation for target APIs. Every function here is deterministic (a call and
 * its result must map alike) and injective in practice: an id that has to change gets a hash of
 * the whole original appended, so two distinct ids that look alike after cutting or replacing
 * characters (`call_p|q` and `call_p/q`, ids differing after character 64) stay distinct.
 */

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A deterministic 64-bit FNV-1a hash of `text` as a bigint. */
function hash64(text: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash;
}

/** `length` alphanumeric characters derived deterministically from `text`. */
export function hashToAlphanumeric(text: string, length: number): string {
  let hash = hash64(text);
  let out = "";
  for (let i = 0; i < length; i++) {
    if (hash === 0n) hash = hash64(`${text}#${i}`);
    out += alphabet[Number(hash % 62n)];
    hash /= 62n;
  }
  return out;
}

/**
 * Keeps an id that fits in `maxLength`; a longer one is cut and given a hash suffix so two long
 * ids that share a prefix stay distinct.
 */
export function shortenToolCallId(id: string, maxLength: number): string {
  if (id.length <= maxLength) return id;
  return `${id.slice(0, maxLength - 9)}_${hashToAlphanumeric(id, 8)}`;
}

/**
 * An id of only `[a-zA-Z0-9_-]`, at most `maxLength` (default 64) characters. An id that already
 * is one passes unchanged; any other has its other characters replaced, is cut to leave room,
 * and gets `_` plus a hash of the original.
 */
export function sanitizeToolCallId(id: string, maxLength = 64): string {
  if (id.length <= maxLength && /^[a-zA-Z0-9_-]*$/.test(id)) return id;
  const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, "_");
  return `${cleaned.slice(0, Math.max(0, maxLength - 9))}_${hashToAlphanumeric(id, 8)}`;
}

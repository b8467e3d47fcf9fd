import type { ModelCompat } from "../../types.js";

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
 * ids that share a prefix stay distinct. Deterministic, so a call and its result map alike.
 */
export function shortenToolCallId(id: string, maxLength: number): string {
  if (id.length <= maxLength) return id;
  return `${id.slice(0, maxLength - 9)}_${hashToAlphanumeric(id, 8)}`;
}

/**
 * A tool-call id the Chat Completions server accepts: Mistral (`alphanumeric9`) wants exactly
 * nine alphanumerics; OpenAI rejects ids over 40 characters; otherwise ids pass unchanged (Groq's
 * `functions.add:0` must come back as it was sent).
 */
export function normalizeCompletionsToolCallId(id: string, format: ModelCompat["toolCallIdFormat"]): string {
  if (format === "alphanumeric9") return /^[a-zA-Z0-9]{9}$/.test(id) ? id : hashToAlphanumeric(id, 9);
  return shortenToolCallId(id, 40);
}

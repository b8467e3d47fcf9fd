import { hashToAlphanumeric, shortenToolCallId } from "../../tool-call-ids.js";
import type { ModelCompat } from "../../types.js";

/**
 * A tool-call id the Chat Completions server accepts: Mistral (`alphanumeric9`) wants exactly
 * nine alphanumerics; OpenAI rejects ids over 40 characters; otherwise ids pass unchanged (Groq's
 * `functions.add:0` must come back as it was sent).
 */
export function normalizeCompletionsToolCallId(id: string, format: ModelCompat["toolCallIdFormat"]): string {
  if (format === "alphanumeric9") return /^[a-zA-Z0-9]{9}$/.test(id) ? id : hashToAlphanumeric(id, 9);
  return shortenToolCallId(id, 40);
}

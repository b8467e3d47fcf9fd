import { registerApiIfAbsent } from "../api-registry.js";
import { createLazyStreamFunction } from "./create-lazy-stream-function.js";
import { streamFaux } from "./faux/stream.js";

// Each provider loads on its first request: a run uses one of them, and compiling all of them
// (about 110 kB) would cost every start-up. The faux provider is small and stays eager for tests.

/** Anthropic Messages API; loads the provider on first call. Returns at once, never throws. */
export const streamAnthropicMessages = createLazyStreamFunction(
  "anthropic-messages",
  async () => (await import("./anthropic-messages/stream.js")).streamAnthropicMessages,
);

/** Google Gemini API; loads the provider on first call. Returns at once, never throws. */
export const streamGoogleGemini = createLazyStreamFunction(
  "google-gemini",
  async () => (await import("./google-gemini/stream.js")).streamGoogleGemini,
);

/** OpenAI Chat Completions API (and compatible servers); loads the provider on first call. Returns at once, never throws. */
export const streamOpenAICompletions = createLazyStreamFunction(
  "openai-completions",
  async () => (await import("./openai-completions/stream.js")).streamOpenAICompletions,
);

/** OpenAI Responses API; loads the provider on first call. Returns at once, never throws. */
export const streamOpenAIResponses = createLazyStreamFunction(
  "openai-responses",
  async () => (await import("./openai-responses/stream.js")).streamOpenAIResponses,
);

/**
 * Registers the stream functions of the built-in wire APIs that have none yet. Called once by the
 * package entry; a program's own registration, or an earlier copy's, is kept.
 */
export function registerBuiltInApis(): void {
  registerApiIfAbsent("faux", streamFaux);
  registerApiIfAbsent("anthropic-messages", streamAnthropicMessages);
  registerApiIfAbsent("google-gemini", streamGoogleGemini);
  registerApiIfAbsent("openai-completions", streamOpenAICompletions);
  registerApiIfAbsent("openai-responses", streamOpenAIResponses);
}

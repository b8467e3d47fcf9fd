import { createEmptyUsage } from "@gyre/ai";
import { describe, expect, it } from "vitest";
import { assistantMessage } from "../../../test/session/helpers.js";
import { isContextOverflow } from "./is-context-overflow.js";
import { shouldCompact } from "./should-compact.js";

function failed(errorMessage: string) {
  return { ...assistantMessage([], "error"), errorMessage };
}

const overflowMessages: [string, string][] = [
  [
    "OpenAI",
    "400 This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
  ],
  ["OpenAI code", '{"error":{"code":"context_length_exceeded","message":"Input too long"}}'],
  ["OpenAI Responses", "Your input exceeds the context window of this model. Please adjust your input and try again."],
  ["Anthropic", "400 prompt is too long: 208117 tokens > 200000 maximum"],
  ["Google", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."],
  ["llama.cpp", "the request exceeds the available context size, try increasing it"],
  ["vLLM", "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens in the messages"],
  ["Ollama", "prompt too long; exceeded max context length by 512 tokens"],
  [
    "LM Studio",
    "Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context length of 8192",
  ],
  ["OpenRouter", "This endpoint's maximum context length is 65536 tokens. However, you requested about 70000 tokens"],
  ["Mistral", "Prompt contains 40000 tokens, too large for model with 32768 maximum context length"],
  ["Groq", "Please reduce the length of the messages or completion."],
];

describe("isContextOverflow", () => {
  it.each(overflowMessages)("recognises %s's overflow error", (_provider, text) => {
    expect(isContextOverflow(failed(text))).toBe(true);
  });

  it.each([
    "429 Rate limit reached for gpt-5 in organization org-x on tokens per min (TPM)",
    "401 Incorrect API key provided",
    "500 Internal server error",
    "Request was aborted.",
    "overloaded_error: Overloaded",
  ])("does not mistake %s for an overflow", (text) => {
    expect(isContextOverflow(failed(text))).toBe(false);
  });

  it("ignores successful and aborted messages unless the usage shows a silent overflow", () => {
    expect(isContextOverflow(assistantMessage([{ type: "text", text: "maximum context length" }]))).toBe(false);
    expect(isContextOverflow({ ...failed("prompt is too long"), stopReason: "aborted" })).toBe(false);
    const usage = { ...createEmptyUsage(), input: 9_000 };
    expect(isContextOverflow({ ...assistantMessage([]), usage }, 8_192)).toBe(true);
    expect(isContextOverflow({ ...assistantMessage([]), usage }, 16_384)).toBe(false);
  });
});

describe("shouldCompact", () => {
  it("compacts once the context passes the window minus the reserve", () => {
    const model = { contextWindow: 100_000 };
    expect(shouldCompact({ contextTokens: 83_000, model, reserveTokens: 16_000 })).toBe(false);
    expect(shouldCompact({ contextTokens: 84_001, model, reserveTokens: 16_000 })).toBe(true);
    expect(shouldCompact({ contextTokens: 10, model: { contextWindow: 0 }, reserveTokens: 0 })).toBe(false);
  });
});

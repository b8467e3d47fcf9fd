import { describe, expect, it } from "vitest";
import { createTestModel } from "../test/helpers/test-model.js";
import {
  convertAnthropicMessages,
  normalizeAnthropicToolCallId,
} from "./providers/anthropic-messages/convert-messages.js";
import { normalizeCompletionsToolCallId } from "./providers/openai-completions/tool-call-ids.js";
import { convertResponsesMessages } from "./providers/openai-responses/convert-messages.js";
import { sanitizeToolCallId } from "./tool-call-ids.js";
import type { AssistantMessage, Message } from "./types.js";
import { createEmptyUsage } from "./usage.js";

const long = "call_".padEnd(64, "x");
/** Pairs of distinct ids that a lossy normalisation makes equal. */
const lookalikes: [string, string][] = [
  ["call_p|q", "call_p/q"],
  ["call_p|q", "call_p_q"],
  [`${long}A`, `${long}B`],
  ["toolu.1+2=3", "toolu_1_2_3"],
];

const normalisers: [string, (id: string) => string][] = [
  ["sanitizeToolCallId", (id) => sanitizeToolCallId(id)],
  ["Anthropic", normalizeAnthropicToolCallId],
  ["Chat Completions (any)", (id) => normalizeCompletionsToolCallId(id, "any")],
  ["Chat Completions (Mistral)", (id) => normalizeCompletionsToolCallId(id, "alphanumeric9")],
];

describe("tool-call id normalisation", () => {
  it.each(normalisers)("%s keeps distinct ids distinct", (_name, normalise) => {
    for (const [a, b] of lookalikes) expect(normalise(a)).not.toBe(normalise(b));
  });

  it.each(normalisers)("%s gives the same id every time and leaves an acceptable id alone", (_name, normalise) => {
    expect(normalise("call_p|q")).toBe(normalise("call_p|q"));
    expect(normalise("abcDEF123")).toBe("abcDEF123");
  });

  it("keeps Anthropic's rules: only [a-zA-Z0-9_-], at most 64 characters", () => {
    for (const [a, b] of lookalikes) {
      for (const id of [normalizeAnthropicToolCallId(a), normalizeAnthropicToolCallId(b)]) {
        expect(id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      }
    }
  });

  it("sends two look-alike calls and their results under distinct ids on Anthropic and Responses", () => {
    const model = (api: "anthropic-messages" | "openai-responses") => createTestModel(api, "http://127.0.0.1:1");
    const call: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "toolCall", id: "call_p|q", name: "ls", arguments: {} },
        { type: "toolCall", id: "call_p/q", name: "ls", arguments: {} },
      ],
      api: "anthropic-messages",
      provider: "p",
      model: "m",
      usage: createEmptyUsage(),
      stopReason: "toolUse",
      timestamp: 1,
    };
    const result = (toolCallId: string): Message => ({
      role: "toolResult",
      toolCallId,
      toolName: "ls",
      content: [{ type: "text", text: toolCallId }],
      isError: false,
      timestamp: 2,
    });
    const messages: Message[] = [call, result("call_p|q"), result("call_p/q")];
    const anthropic = JSON.stringify(convertAnthropicMessages({ messages }, model("anthropic-messages")));
    const useIds = [...anthropic.matchAll(/"id":"([^"]+)"/g)].map((match) => match[1]);
    const resultIds = [...anthropic.matchAll(/"tool_use_id":"([^"]+)"/g)].map((match) => match[1]);
    expect(new Set(useIds).size).toBe(2);
    expect(resultIds).toEqual(useIds);
    const responses = JSON.stringify(convertResponsesMessages(model("openai-responses"), messages));
    const callIds = [...responses.matchAll(/"call_id":"([^"]+)"/g)].map((match) => match[1]);
    expect(new Set(callIds).size).toBe(2);
  });
});

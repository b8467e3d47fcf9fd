import { type AssistantMessage, createAssistantMessage, type Model } from "@gyre/ai";
import { describe, expect, it } from "vitest";
import { describeWebSearches } from "./web-search-lines.js";

const model: Model = {
  id: "m",
  name: "m",
  api: "anthropic-messages",
  provider: "anthropic",
  baseUrl: "http://127.0.0.1:1",
  reasoning: false,
  input: ["text"],
  contextWindow: 1000,
  maxTokens: 100,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};

function message(content: AssistantMessage["content"]): AssistantMessage {
  return { ...createAssistantMessage(model, { stopReason: "stop" }), content };
}

describe("describeWebSearches", () => {
  it("says nothing for a message without a server-side search", () => {
    expect(describeWebSearches(message([{ type: "text", text: "hi" }]))).toEqual([]);
  });

  it("names each query with its result count or failure, then each cited page once", () => {
    const lines = describeWebSearches(
      message([
        { type: "serverToolCall", id: "a", name: "web_search", input: { query: "one" } },
        { type: "serverToolResult", toolCallId: "a", name: "web_search", results: [{ url: "https://x.example/" }] },
        { type: "serverToolCall", id: "b", name: "web_search", input: { queries: ["two", "three"] } },
        {
          type: "serverToolResult",
          toolCallId: "b",
          name: "web_search",
          results: [],
          errorMessage: "max_uses_exceeded",
        },
        { type: "serverToolCall", id: "c", name: "web_search", input: {} },
        {
          type: "text",
          text: "cited",
          citations: [
            { url: "https://x.example/", title: "X" },
            { url: "https://x.example/" },
            { url: "https://y.example/" },
          ],
        },
      ]),
    );
    expect(lines).toEqual([
      "searched: one — 1 result",
      "searched: two; three — failed (max_uses_exceeded)",
      "searched: (no query) — no result yet",
      "  cited: X <https://x.example/>",
      "  cited: <https://y.example/>",
    ]);
  });
});

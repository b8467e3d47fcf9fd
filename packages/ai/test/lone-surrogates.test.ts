/**
 * A lone UTF-16 surrogate (half an emoji, cut by a byte-wise truncation in a tool) makes
 * providers reject the whole request. Every API must send U+FFFD in its place and keep whole
 * emoji as they are.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { complete } from "../src/index.js";
import type { Context } from "../src/types.js";
import { createEmptyUsage } from "../src/usage.js";
import { type LocalServer, startLocalServer, type WireApi } from "./helpers/local-server.js";
import { createTestModel } from "./helpers/test-model.js";

const high = "\ud83d";
const low = "\ude00";

const context: Context = {
  systemPrompt: `system ${high} prompt`,
  messages: [
    { role: "user", content: `user text ${high} cut, whole 😀`, timestamp: 1 },
    {
      role: "assistant",
      content: [{ type: "toolCall", id: "call_1", name: "read", arguments: { path: `a${low}.txt` } }],
      api: "openai-completions",
      provider: "local",
      model: "test-model",
      usage: createEmptyUsage(),
      stopReason: "toolUse",
      timestamp: 2,
    },
    {
      role: "toolResult",
      toolCallId: "call_1",
      toolName: "read",
      content: [{ type: "text", text: `file ends mid-emoji ${high}` }],
      isError: false,
      timestamp: 3,
    },
    { role: "user", content: [{ type: "text", text: `${low} leading low half` }], timestamp: 4 },
  ],
};

let server: LocalServer;
beforeAll(async () => {
  // The request is all that matters here; an empty 500 ends each call at once.
  server = await startLocalServer((_request, response) => {
    response.writeHead(400, { "content-type": "application/json" });
    response.end('{"error":{"message":"stop here"}}');
  });
});
afterAll(() => server.close());

const apis: WireApi[] = ["openai-completions", "openai-responses", "anthropic-messages", "google-gemini"];

describe("lone surrogates", () => {
  it.each(apis)("%s replaces every lone surrogate with U+FFFD and keeps whole emoji", async (api) => {
    const baseUrl = api.startsWith("openai") ? `${server.url}/v1` : server.url;
    const before = server.requests.length;
    await complete(createTestModel(api, baseUrl), context, { apiKey: "k", retry: { maxRetries: 0 } });
    const sent = JSON.stringify(server.requests[before]?.body);
    expect(sent).toBeDefined();
    expect(sent).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
    expect(sent).toContain("user text \ufffd cut, whole 😀");
    expect(sent).toContain("file ends mid-emoji \ufffd");
    expect(sent).toContain("\ufffd leading low half");
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { complete, sanitizeToolCallId } from "../src/index.js";
import { streamAnthropicMessages } from "../src/providers/anthropic-messages/stream.js";
import type { AssistantMessage, Context, Model } from "../src/types.js";
import { createEmptyUsage } from "../src/usage.js";
import type { LocalServer } from "./helpers/local-server.js";
import { startFixtureServer } from "./helpers/replay.js";
import { createTestModel } from "./helpers/test-model.js";

const assistant = (content: AssistantMessage["content"], extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  content,
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  usage: createEmptyUsage(),
  stopReason: "toolUse",
  timestamp: 1,
  ...extra,
});

/** The Paris call's id made acceptable: characters replaced, a hash of the original appended. */
const parisId = sanitizeToolCallId("call|paris/1");

const context: Context = {
  systemPrompt: "You are terse.",
  tools: [
    {
      name: "weather",
      description: "Current weather for a city.",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  ],
  messages: [
    { role: "user", content: "Weather in Paris and Rome?", timestamp: 1 },
    assistant([
      { type: "thinking", thinking: "Two cities, two calls.", signature: "sig-abc" },
      { type: "thinking", thinking: "", signature: "opaque-data", redacted: true },
      { type: "text", text: "Checking both." },
      { type: "toolCall", id: "call|paris/1", name: "weather", arguments: { city: "Paris" } },
      { type: "toolCall", id: "toolu_rome", name: "weather", arguments: { city: "Rome" } },
    ]),
    {
      role: "toolResult",
      toolCallId: "call|paris/1",
      toolName: "weather",
      content: [{ type: "text", text: "Sunny, 24°C" }],
      isError: false,
      timestamp: 2,
    },
    {
      role: "toolResult",
      toolCallId: "toolu_rome",
      toolName: "weather",
      content: [
        { type: "text", text: "Radar attached" },
        { type: "image", data: "aW1n", mimeType: "image/png" },
      ],
      isError: true,
      details: { never: "sent" },
      timestamp: 3,
    },
    assistant([{ type: "text", text: "Paris is sunny." }], { stopReason: "stop" }),
    { role: "user", content: "And tomorrow?", timestamp: 4 },
    assistant([{ type: "text", text: "half an ans" }], { stopReason: "aborted" }),
    assistant(
      [
        { type: "thinking", thinking: "Other model's thought." },
        { type: "text", text: "Unknown." },
      ],
      {
        provider: "openai",
        model: "gpt-5",
        stopReason: "stop",
      },
    ),
    { role: "user", content: [{ type: "text", text: "Try again" }], timestamp: 5 },
  ],
};

let server: LocalServer;
let model: Model;
beforeAll(async () => {
  server = await startFixtureServer("anthropic-messages", "sonnet45-short-text-padded-json.sse");
  model = createTestModel("anthropic-messages", server.url, { headers: { "x-model-header": "m" } });
});
afterAll(() => server.close());

describe("anthropic-messages request", () => {
  it("sends a multi-turn history with thinking, tools and tool results in Anthropic's shape", async () => {
    const message = await streamAnthropicMessages(model, context, {
      apiKey: "sk-test",
      thinking: "medium",
      temperature: 0.5,
      maxTokens: 4000,
      headers: { "x-option-header": "o" },
    }).result();
    expect(message.stopReason).toBe("stop");
    const request = server.requests.at(-1);
    expect(request?.url).toBe("/v1/messages");
    expect(request?.headers).toMatchObject({
      "x-api-key": "sk-test",
      "anthropic-version": "2023-06-01",
      "x-model-header": "m",
      "x-option-header": "o",
      "content-type": "application/json",
    });
    expect(request?.body).toEqual({
      model: "claude-sonnet-4-5",
      // The medium budget (8192) leaves no room for an answer within the model's 8192-token
      // limit: max_tokens is raised to the limit and the budget shrinks to fit.
      max_tokens: 8192,
      stream: true,
      thinking: { type: "enabled", budget_tokens: 7168 },
      system: [{ type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } }],
      tools: [
        {
          name: "weather",
          description: "Current weather for a city.",
          input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      ],
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather in Paris and Rome?" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Two cities, two calls.", signature: "sig-abc" },
            { type: "redacted_thinking", data: "opaque-data" },
            { type: "text", text: "Checking both." },
            { type: "tool_use", id: parisId, name: "weather", input: { city: "Paris" } },
            { type: "tool_use", id: "toolu_rome", name: "weather", input: { city: "Rome" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: parisId, content: [{ type: "text", text: "Sunny, 24°C" }] },
            {
              type: "tool_result",
              tool_use_id: "toolu_rome",
              content: [
                { type: "text", text: "Radar attached" },
                { type: "image", source: { type: "base64", media_type: "image/png", data: "aW1n" } },
              ],
              is_error: true,
            },
          ],
        },
        { role: "assistant", content: [{ type: "text", text: "Paris is sunny." }] },
        { role: "user", content: [{ type: "text", text: "And tomorrow?" }] },
        // The aborted answer is dropped; another model's thinking becomes plain text.
        {
          role: "assistant",
          content: [
            { type: "text", text: "Other model's thought." },
            { type: "text", text: "Unknown." },
          ],
        },
        {
          role: "user",
          content: [{ type: "text", text: "Try again", cache_control: { type: "ephemeral" } }],
        },
      ],
    });
  });

  it("raises max_tokens above the thinking budget when the model allows it", async () => {
    await streamAnthropicMessages(
      { ...model, maxTokens: 64_000 },
      { messages: [{ role: "user", content: "hi", timestamp: 0 }] },
      { apiKey: "k", thinking: "high", maxTokens: 4000 },
    ).result();
    const body = server.requests.at(-1)?.body as Record<string, unknown>;
    expect(body.max_tokens).toBe(20_384);
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 16_384 });
  });

  it("sends temperature and no thinking when thinking is off", async () => {
    await streamAnthropicMessages(
      model,
      { messages: [{ role: "user", content: "hi", timestamp: 0 }] },
      { apiKey: "k", thinking: "off", temperature: 0.2 },
    ).result();
    const body = server.requests.at(-1)?.body as Record<string, unknown>;
    expect(body.temperature).toBe(0.2);
    expect(body.thinking).toBeUndefined();
    expect(body.max_tokens).toBe(8192);
    expect(body.system).toBeUndefined();
    expect(body.tools).toBeUndefined();
  });

  it("gives an orphaned tool call a synthetic error result before the next user turn", async () => {
    await streamAnthropicMessages(
      model,
      {
        messages: [
          { role: "user", content: "go", timestamp: 0 },
          assistant([{ type: "toolCall", id: "toolu_x", name: "weather", arguments: {} }]),
          { role: "user", content: "never mind", timestamp: 1 },
        ],
      },
      { apiKey: "k" },
    ).result();
    const body = server.requests.at(-1)?.body as { messages: { role: string; content: { type: string }[] }[] };
    expect(body.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(body.messages[2]?.content.map((block) => block.type)).toEqual(["tool_result", "text"]);
    expect(body.messages[2]?.content[0]).toMatchObject({ tool_use_id: "toolu_x", is_error: true });
  });

  it("reads the key only from options, never from the environment, and says how to pass one", async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = "sk-ant-from-the-environment";
    try {
      const before = server.requests.length;
      const message = await streamAnthropicMessages(model, { messages: [] }, {}).result();
      expect(message.stopReason).toBe("error");
      expect(message.errorMessage).toMatch(/No API key for Anthropic: pass apiKey.*ANTHROPIC_API_KEY/);
      expect(server.requests.length).toBe(before);
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
  });
  it("is what the package's stream() uses for the anthropic-messages API", async () => {
    const before = server.requests.length;
    const message = await complete(
      model,
      { messages: [{ role: "user", content: "hi", timestamp: 0 }] },
      { apiKey: "k" },
    );
    expect(message.api).toBe("anthropic-messages");
    expect(message.stopReason).toBe("stop");
    expect(server.requests.length).toBe(before + 1);
  });
});

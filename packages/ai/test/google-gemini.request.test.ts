import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { complete } from "../src/index.js";
import { streamGoogleGemini } from "../src/providers/google-gemini/stream.js";
import type { AssistantMessage, Context, Model, TextContent } from "../src/types.js";
import { createEmptyUsage } from "../src/usage.js";
import type { LocalServer } from "./helpers/local-server.js";
import { startFixtureServer } from "./helpers/replay.js";
import { createTestModel } from "./helpers/test-model.js";

const assistant = (content: AssistantMessage["content"], extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  content,
  api: "google-gemini",
  provider: "google",
  model: "gemini-2.5-flash",
  usage: createEmptyUsage(),
  stopReason: "toolUse",
  timestamp: 1,
  ...extra,
});

const signedText: TextContent = { type: "text", text: "Let me look.", signature: "sig-text" };

const context: Context = {
  systemPrompt: "Be brief.",
  tools: [
    {
      name: "weather",
      description: "Current weather for a city.",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  ],
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "Weather here and in Rome?" },
        { type: "image", data: "aW1n", mimeType: "image/jpeg" },
      ],
      timestamp: 1,
    },
    assistant([
      { type: "thinking", thinking: "Two lookups.", signature: "sig-thought" },
      signedText,
      {
        type: "toolCall",
        id: "gemini_call_r1_0",
        name: "weather",
        arguments: { city: "Paris" },
        signature: "sig-call",
      },
      { type: "toolCall", id: "abc123", name: "weather", arguments: { city: "Rome" } },
    ]),
    {
      role: "toolResult",
      toolCallId: "gemini_call_r1_0",
      toolName: "weather",
      content: [
        { type: "text", text: "Sunny" },
        { type: "image", data: "bWFw", mimeType: "image/png" },
      ],
      isError: false,
      timestamp: 2,
    },
    {
      role: "toolResult",
      toolCallId: "abc123",
      toolName: "weather",
      content: [{ type: "text", text: "City not found" }],
      isError: true,
      timestamp: 3,
    },
    assistant(
      [
        { type: "thinking", thinking: "Claude thought.", signature: "claude-sig" },
        { type: "toolCall", id: "toolu_1", name: "weather", arguments: { city: "Oslo" }, signature: "foreign" },
      ],
      { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" },
    ),
    {
      role: "toolResult",
      toolCallId: "toolu_1",
      toolName: "weather",
      content: [{ type: "text", text: "Snow" }],
      isError: false,
      timestamp: 4,
    },
    { role: "user", content: "Summarise.", timestamp: 5 },
  ],
};

let server: LocalServer;
let baseModel: Model;
beforeAll(async () => {
  server = await startFixtureServer("google-gemini", "gemini31pro-text-thought-signature.sse");
  baseModel = createTestModel("google-gemini", server.url);
});
afterAll(() => server.close());

const lastBody = () => server.requests.at(-1)?.body as Record<string, unknown>;

describe("google-gemini request", () => {
  it("sends a multi-turn history with thought signatures, function calls and responses in Gemini's shape", async () => {
    const message = await streamGoogleGemini(baseModel, context, {
      apiKey: "g-key",
      thinking: "high",
      temperature: 0.3,
      maxTokens: 1000,
      headers: { "x-extra": "1" },
    }).result();
    expect(message.stopReason).toBe("stop");
    const request = server.requests.at(-1);
    expect(request?.url).toBe("/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(request?.headers).toMatchObject({ "x-goog-api-key": "g-key", "x-extra": "1" });
    expect(request?.body).toEqual({
      systemInstruction: { parts: [{ text: "Be brief." }] },
      tools: [
        {
          functionDeclarations: [
            {
              name: "weather",
              description: "Current weather for a city.",
              parametersJsonSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
            },
          ],
        },
      ],
      generationConfig: {
        maxOutputTokens: 1000,
        temperature: 0.3,
        thinkingConfig: { includeThoughts: true, thinkingBudget: 24_576 },
      },
      contents: [
        {
          role: "user",
          parts: [{ text: "Weather here and in Rome?" }, { inlineData: { mimeType: "image/jpeg", data: "aW1n" } }],
        },
        {
          role: "model",
          parts: [
            { text: "Two lookups.", thought: true, thoughtSignature: "sig-thought" },
            { text: "Let me look.", thoughtSignature: "sig-text" },
            // Made-up ids stay local; Google's own ids go back.
            { functionCall: { name: "weather", args: { city: "Paris" } }, thoughtSignature: "sig-call" },
            { functionCall: { name: "weather", args: { city: "Rome" }, id: "abc123" } },
          ],
        },
        {
          role: "user",
          parts: [
            { functionResponse: { name: "weather", response: { output: "Sunny" } } },
            { inlineData: { mimeType: "image/png", data: "bWFw" } },
            { functionResponse: { name: "weather", id: "abc123", response: { error: "City not found" } } },
          ],
        },
        {
          // Another model's thinking becomes text and its signatures are dropped.
          role: "model",
          parts: [
            { text: "Claude thought." },
            { functionCall: { name: "weather", args: { city: "Oslo" }, id: "toolu_1" } },
          ],
        },
        {
          role: "user",
          parts: [
            { functionResponse: { name: "weather", id: "toolu_1", response: { output: "Snow" } } },
            { text: "Summarise." },
          ],
        },
      ],
    });
  });

  it("signs unsigned calls with Google's placeholder for Gemini 3 models", async () => {
    const model = { ...baseModel, id: "gemini-3-pro-preview" };
    await streamGoogleGemini(model, { messages: context.messages.slice(0, 7) }, { apiKey: "g-key" }).result();
    const contents = lastBody().contents as { role: string; parts: Record<string, unknown>[] }[];
    const calls = contents.flatMap((content) => content.parts.filter((part) => part.functionCall));
    // A different model id: none of the recorded signatures may be replayed.
    expect(calls.map((part) => part.thoughtSignature)).toEqual([
      "skip_thought_signature_validator",
      "skip_thought_signature_validator",
      "skip_thought_signature_validator",
    ]);
  });

  it("maps thinking levels to thinkingConfig", async () => {
    const config = async (model: Model, thinking?: "off" | "low") => {
      await streamGoogleGemini(model, { messages: [] }, { apiKey: "k", ...(thinking ? { thinking } : {}) }).result();
      return (lastBody().generationConfig as Record<string, unknown>).thinkingConfig;
    };
    expect(await config(baseModel)).toEqual({ includeThoughts: true });
    expect(await config(baseModel, "low")).toEqual({ includeThoughts: true, thinkingBudget: 1024 });
    expect(await config(baseModel, "off")).toEqual({ thinkingBudget: 0 });
    expect(await config({ ...baseModel, id: "gemini-2.5-pro" }, "off")).toEqual({ thinkingBudget: 128 });
    expect(await config({ ...baseModel, reasoning: false }, "low")).toBeUndefined();
  });

  it("reads the key only from options, never from the environment, and says how to pass one", async () => {
    const saved = process.env.GEMINI_API_KEY;
    process.env.GEMINI_API_KEY = "key-from-the-environment";
    try {
      const message = await streamGoogleGemini(baseModel, { messages: [] }, {}).result();
      expect(message.stopReason).toBe("error");
      expect(message.errorMessage).toMatch(/No API key for Google: pass apiKey.*GEMINI_API_KEY/);
    } finally {
      if (saved === undefined) delete process.env.GEMINI_API_KEY;
      else process.env.GEMINI_API_KEY = saved;
    }
  });
  it("is what the package's stream() uses for the google-gemini API", async () => {
    const before = server.requests.length;
    const message = await complete(
      baseModel,
      { messages: [{ role: "user", content: "hi", timestamp: 0 }] },
      { apiKey: "k" },
    );
    expect(message.api).toBe("google-gemini");
    expect(message.stopReason).toBe("stop");
    expect(server.requests.length).toBe(before + 1);
  });
});

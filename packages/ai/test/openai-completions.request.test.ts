import { afterEach, describe, expect, it } from "vitest";
import { complete } from "../src/index.js";
import type { AssistantMessage, Context, Model, Tool } from "../src/types.js";
import { createEmptyUsage } from "../src/usage.js";
import { type LocalServer, startLocalServer, writeChunks } from "./helpers/local-server.js";
import { startFixtureServer } from "./helpers/replay.js";
import { createTestModel } from "./helpers/test-model.js";

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server that records the request and answers with `body` (default: a plain text answer). */
async function serve(body?: string): Promise<LocalServer> {
  const server = body
    ? await startLocalServer(async (_request, response) => {
        await writeChunks(response, [Buffer.from(body)], "text/event-stream");
      })
    : await startFixtureServer("openai-completions", "openai-gpt5-simple-text-usage.sse");
  servers.push(server);
  return server;
}

function messagesOf(server: LocalServer): Record<string, unknown>[] {
  const body = server.requests[0]?.body as { messages?: Record<string, unknown>[] } | undefined;
  return body?.messages ?? [];
}

const model = (server: LocalServer, overrides: Partial<Model> = {}) =>
  createTestModel("openai-completions", `${server.url}/v1`, overrides);

const readTool: Tool = {
  name: "read",
  description: "Read a file",
  strict: true,
  parameters: {
    type: "object",
    properties: {
      path: { type: "string" },
      limit: { type: "number", description: "max lines" },
      options: { type: "object", properties: { encoding: { type: "string" } } },
    },
    required: ["path"],
  },
};

const assistantFrom = (provider: string, modelId: string, content: AssistantMessage["content"]): AssistantMessage => ({
  role: "assistant",
  content,
  api: "openai-completions",
  provider,
  model: modelId,
  usage: createEmptyUsage(),
  stopReason: "toolUse",
  timestamp: 2,
});

const history: Context = {
  systemPrompt: "You are terse.",
  tools: [readTool, { name: "ls", description: "List", parameters: { type: "object", properties: {} } }],
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "What is in this picture?" },
        { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
      ],
      timestamp: 1,
    },
    assistantFrom("local", "test-model", [
      { type: "thinking", thinking: "Look at the file." },
      { type: "text", text: "Reading." },
      { type: "toolCall", id: "toolu_01A", name: "read", arguments: { path: "a.txt" } },
    ]),
    {
      role: "toolResult",
      toolCallId: "toolu_01A",
      toolName: "read",
      content: [
        { type: "text", text: "contents" },
        { type: "image", data: "aW1n", mimeType: "image/jpeg" },
      ],
      isError: false,
      timestamp: 3,
    },
    { role: "user", content: "Thanks", timestamp: 4 },
  ],
};

describe("openai-completions request", () => {
  it("converts the whole context, sends strict tools strict and authenticates with the key", async () => {
    const server = await serve();
    const reasoningModel = model(server, {
      reasoning: true,
      headers: { "x-model": "m" },
      compat: { supportsStrictTools: true, supportsDeveloperRole: true, maxTokensField: "max_completion_tokens" },
    });
    const message = await complete(reasoningModel, history, {
      apiKey: "sk-test",
      headers: { "x-call": "c" },
      thinking: "high",
      maxTokens: 500,
      temperature: 0.2,
    });
    expect(message.stopReason).toBe("stop");
    const [request] = server.requests;
    expect(request?.url).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe("Bearer sk-test");
    expect(request?.headers["x-model"]).toBe("m");
    expect(request?.headers["x-call"]).toBe("c");
    expect(request?.body).toEqual({
      model: "test-model",
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 500,
      temperature: 0.2,
      reasoning_effort: "high",
      messages: [
        { role: "developer", content: "You are terse." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this picture?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,aGVsbG8=" } },
          ],
        },
        {
          role: "assistant",
          content: "Reading.",
          reasoning_content: "Look at the file.",
          tool_calls: [
            { id: "toolu_01A", type: "function", function: { name: "read", arguments: '{"path":"a.txt"}' } },
          ],
        },
        { role: "tool", tool_call_id: "toolu_01A", content: "contents" },
        {
          role: "user",
          content: [
            { type: "text", text: "Images returned by the tool calls above:" },
            { type: "image_url", image_url: { url: "data:image/jpeg;base64,aW1n" } },
          ],
        },
        { role: "user", content: "Thanks" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "read",
            description: "Read a file",
            strict: true,
            parameters: {
              type: "object",
              properties: {
                path: { type: "string" },
                limit: { type: ["number", "null"], description: "max lines" },
                options: {
                  type: ["object", "null"],
                  properties: { encoding: { type: ["string", "null"] } },
                  required: ["encoding"],
                  additionalProperties: false,
                },
              },
              required: ["path", "limit", "options"],
              additionalProperties: false,
            },
          },
        },
        {
          type: "function",
          function: { name: "ls", description: "List", parameters: { type: "object", properties: {} } },
        },
      ],
    });
  });

  it("uses server defaults without a key: system role, max_tokens, strict flag dropped", async () => {
    const server = await serve();
    await complete(model(server), { ...history, messages: history.messages.slice(0, 1) }, { maxTokens: 64 });
    const [request] = server.requests;
    expect(request?.headers.authorization).toBeUndefined();
    const body = request?.body as Record<string, unknown>;
    expect(body.max_tokens).toBe(64);
    expect(body.max_completion_tokens).toBeUndefined();
    expect(body.reasoning_effort).toBeUndefined();
    expect((body.messages as { role: string }[])[0]).toEqual({ role: "system", content: "You are terse." });
    const tools = body.tools as { function: Record<string, unknown> }[];
    expect(tools[0]?.function.strict).toBeUndefined();
    expect(tools[0]?.function.parameters).toEqual(readTool.parameters);
  });

  it("gives Mistral nine-character tool-call ids, the same for the call and its result", async () => {
    const server = await serve();
    await complete(model(server, { compat: { toolCallIdFormat: "alphanumeric9" } }), history);
    const messages = messagesOf(server);
    const call = (messages[2]?.tool_calls as { id: string }[] | undefined)?.[0];
    expect(call?.id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(messages[3]).toMatchObject({ role: "tool", tool_call_id: call?.id });
  });

  it("turns another model's thinking into text and does not send it as reasoning", async () => {
    const server = await serve();
    const foreign: Context = {
      messages: [
        { role: "user", content: "hi", timestamp: 1 },
        {
          ...assistantFrom("anthropic", "claude", [{ type: "thinking", thinking: "Hmm.", signature: "sig" }]),
          stopReason: "stop",
        },
        { role: "user", content: "again", timestamp: 3 },
      ],
    };
    await complete(model(server), foreign);
    const messages = messagesOf(server);
    expect(messages[1]).toEqual({ role: "assistant", content: "Hmm." });
  });

  it("removes the nulls strict mode puts in optional arguments", async () => {
    const call = {
      id: "c1",
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index: 0,
                id: "call_1",
                function: { name: "read", arguments: '{"path":"a.txt","limit":null,"options":{"encoding":null}}' },
              },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
    };
    const server = await serve(`data: ${JSON.stringify(call)}\n\ndata: [DONE]\n\n`);
    const message = await complete(model(server, { compat: { supportsStrictTools: true } }), history);
    expect(message.stopReason).toBe("toolUse");
    expect(message.content[0]).toMatchObject({ type: "toolCall", arguments: { path: "a.txt", options: {} } });
  });
});

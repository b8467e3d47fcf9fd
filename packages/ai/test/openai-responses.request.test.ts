import { afterEach, describe, expect, it } from "vitest";
import { complete } from "../src/index.js";
import type { Context, Model } from "../src/types.js";
import { type LocalServer, startLocalServer, writeChunks } from "./helpers/local-server.js";
import { startFixtureServer } from "./helpers/replay.js";
import { createTestModel } from "./helpers/test-model.js";

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server answering each request with the next fixture of `fixtures`. */
async function serve(...fixtures: string[]): Promise<LocalServer> {
  const server = await startFixtureServer("openai-responses", ...fixtures);
  servers.push(server);
  return server;
}

const model = (server: LocalServer, overrides: Partial<Model> = {}) =>
  createTestModel("openai-responses", `${server.url}/v1`, { id: "gpt-test", reasoning: true, ...overrides });

type Body = { input: Record<string, unknown>[]; [key: string]: unknown };
const bodyOf = (server: LocalServer, index: number) => server.requests[index]?.body as Body;

describe("openai-responses request", () => {
  it("sends reasoning, encrypted reasoning and function-call item ids back for the next turn", async () => {
    const server = await serve(
      "openai-codex-step1-reasoning-encrypted-function-call.jsonl",
      "openai-codex-step4-text-after-tools.jsonl",
    );
    const tools = [
      {
        name: "calculator",
        description: "Arithmetic",
        strict: true,
        parameters: {
          type: "object",
          properties: { a: { type: "number" }, b: { type: "number" }, op: { type: "string" } },
          required: ["a", "b"],
        },
      },
    ];
    const context: Context = {
      systemPrompt: "Use the calculator.",
      tools,
      messages: [{ role: "user", content: "(12 + 7) * 3 * 10", timestamp: 1 }],
    };
    const m = model(server, { compat: { supportsStrictTools: true } });
    const first = await complete(m, context, { thinking: "medium", apiKey: "k", maxTokens: 1000 });
    expect(first.stopReason).toBe("toolUse");
    const call = first.content.find((block) => block.type === "toolCall");
    expect(call).toMatchObject({ id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", arguments: { a: 12, b: 7, op: "add" } });

    const request = bodyOf(server, 0);
    expect(server.requests[0]?.url).toBe("/v1/responses");
    expect(server.requests[0]?.headers.authorization).toBe("Bearer k");
    expect(request).toMatchObject({
      model: "gpt-test",
      stream: true,
      store: false,
      instructions: "Use the calculator.",
      max_output_tokens: 1000,
      reasoning: { effort: "medium", summary: "auto" },
      include: ["reasoning.encrypted_content"],
      input: [{ role: "user", content: [{ type: "input_text", text: "(12 + 7) * 3 * 10" }] }],
      tools: [
        {
          type: "function",
          name: "calculator",
          description: "Arithmetic",
          strict: true,
          parameters: {
            type: "object",
            properties: { a: { type: "number" }, b: { type: "number" }, op: { type: ["string", "null"] } },
            required: ["a", "b", "op"],
            additionalProperties: false,
          },
        },
      ],
    });

    context.messages.push(first, {
      role: "toolResult",
      toolCallId: call?.type === "toolCall" ? call.id : "",
      toolName: "calculator",
      content: [
        { type: "text", text: "19" },
        { type: "image", data: "cG5n", mimeType: "image/png" },
      ],
      isError: false,
      timestamp: 3,
    });
    const second = await complete(m, context, { thinking: "medium" });
    expect(second.content).toEqual([{ type: "text", text: "The final result is **570**." }]);
    const input = bodyOf(server, 1).input;
    expect(input.map((item) => item.type ?? item.role)).toEqual([
      "user",
      "reasoning",
      "function_call",
      "function_call_output",
      "user",
    ]);
    expect(input[1]?.id).toMatch(/^rs_/);
    expect(typeof input[1]?.encrypted_content).toBe("string");
    expect((input[1]?.summary as unknown[] | undefined)?.length).toBeGreaterThan(0);
    expect(input[2]).toMatchObject({
      type: "function_call",
      call_id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
      name: "calculator",
      arguments: '{"a":12,"b":7,"op":"add"}',
    });
    expect(input[2]?.id).toMatch(/^fc_/);
    expect(input[3]).toEqual({ type: "function_call_output", call_id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", output: "19" });
    expect(input[4]).toEqual({
      role: "user",
      content: [
        { type: "input_text", text: "Images returned by the tool calls above:" },
        { type: "input_image", image_url: "data:image/png;base64,cG5n", detail: "auto" },
      ],
    });
  });

  it("sends another model's calls without item ids or reasoning, and non-strict tools as strict: false", async () => {
    const server = await serve("openai-codex-step4-text-after-tools.jsonl");
    const first = await complete(model(server), { messages: [{ role: "user", content: "hi", timestamp: 1 }] });
    const foreign = { ...first, provider: "other", content: [...first.content] };
    foreign.content.push({ type: "toolCall", id: "toolu_x", name: "ls", arguments: {}, signature: "fc_123" });
    await complete(model(server), {
      tools: [{ name: "ls", description: "List", strict: true, parameters: { type: "object", properties: {} } }],
      messages: [
        { role: "user", content: "hi", timestamp: 1 },
        foreign,
        {
          role: "toolResult",
          toolCallId: "toolu_x",
          toolName: "ls",
          content: [{ type: "text", text: "a.txt" }],
          isError: false,
          timestamp: 2,
        },
      ],
    });
    const body = bodyOf(server, 1);
    expect(body.input.slice(1)).toEqual([
      { role: "assistant", content: "The final result is **570**." },
      { type: "function_call", call_id: "toolu_x", name: "ls", arguments: "{}" },
      { type: "function_call_output", call_id: "toolu_x", output: "a.txt" },
    ]);
    expect(body.tools).toEqual([
      {
        type: "function",
        name: "ls",
        description: "List",
        strict: false,
        parameters: { type: "object", properties: {} },
      },
    ]);
    expect(body.reasoning).toBeUndefined();
    expect(server.requests[1]?.headers.authorization).toBeUndefined();
  });

  it("joins reasoning summary parts as paragraphs and maps an incomplete response to length", async () => {
    const events = [
      { type: "response.output_item.added", output_index: 0, item: { type: "reasoning", id: "rs_1", summary: [] } },
      { type: "response.reasoning_summary_text.delta", output_index: 0, summary_index: 0, delta: "First." },
      { type: "response.reasoning_summary_text.delta", output_index: 0, summary_index: 1, delta: "Second." },
      { type: "response.output_item.added", output_index: 1, item: { type: "message", id: "msg_1", content: [] } },
      { type: "response.output_text.delta", output_index: 1, delta: "Trunc" },
      {
        type: "response.incomplete",
        response: {
          id: "resp_1",
          status: "incomplete",
          incomplete_details: { reason: "max_output_tokens" },
          usage: { input_tokens: 5, output_tokens: 7, input_tokens_details: { cached_tokens: 0 } },
        },
      },
    ];
    const body = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
    const server = await startLocalServer(async (_request, response) => {
      await writeChunks(response, [Buffer.from(body)], "text/event-stream");
    });
    servers.push(server);
    const message = await complete(model(server), { messages: [{ role: "user", content: "hi", timestamp: 1 }] });
    expect(message.stopReason).toBe("length");
    expect(message.rawStopReason).toBe("max_output_tokens");
    expect(message.responseId).toBe("resp_1");
    expect(message.content).toMatchObject([
      { type: "thinking", thinking: "First.\n\nSecond." },
      { type: "text", text: "Trunc" },
    ]);
    expect(message.usage).toMatchObject({ input: 5, output: 7, totalTokens: 12 });
  });
});

import { describe, expect, it } from "vitest";
import type { AssistantMessage, Context, Message, Model, ToolResultMessage } from "../../types.js";
import { createEmptyUsage } from "../../usage.js";
import { createToolCall } from "../message-builder.js";
import { convertCompletionsMessages } from "./convert-messages.js";
import { buildCompletionsRequest, resolveCompletionsCompat, serializeCompletionsRequest } from "./request.js";

const model: Model = {
  id: "m1",
  name: "m1",
  api: "openai-completions",
  provider: "p1",
  baseUrl: "http://127.0.0.1:1/v1",
  reasoning: false,
  input: ["text", "image"],
  contextWindow: 100_000,
  maxTokens: 1000,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};
const compat = resolveCompletionsCompat(model);

function assistant(content: AssistantMessage["content"], extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "p1",
    model: "m1",
    usage: createEmptyUsage(),
    stopReason: "toolUse",
    timestamp: 1,
    ...extra,
  };
}

function result(toolCallId: string, text: string): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName: "read",
    content: [{ type: "text", text }],
    isError: false,
    timestamp: 2,
  };
}

/** A history with every kind of message the converter treats differently. */
function history(): Message[] {
  return [
    { role: "user", content: "start", timestamp: 1 },
    assistant([
      { type: "thinking", thinking: "hmm" },
      { type: "text", text: "reading" },
      createToolCall("c1", "read", '{"path":"a.txt"}'),
      { type: "toolCall", id: "c2", name: "read", arguments: { path: "b.txt" } },
    ]),
    result("c1", "A"),
    {
      role: "toolResult",
      toolCallId: "c2",
      toolName: "read",
      content: [{ type: "image", data: "aGk=", mimeType: "image/png" }],
      isError: false,
      timestamp: 2,
    },
    {
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "image", data: "aGk=", mimeType: "image/png" },
      ],
      timestamp: 3,
    },
    assistant([createToolCall("c3", "read", '{"path":"c.txt"}')]),
    assistant([{ type: "text", text: "failed" }], { stopReason: "error" }),
    assistant([{ type: "text", text: "done" }], { stopReason: "stop" }),
  ];
}

/** The conversion of a deep copy: new objects, so nothing can come from the cache. */
const fresh = (context: Context, target = model) =>
  convertCompletionsMessages(target, structuredClone(context), resolveCompletionsCompat(target));

describe("convertCompletionsMessages cache", () => {
  it("gives the same messages as a fresh conversion on every call of a growing history", () => {
    const all = history();
    for (let length = 1; length <= all.length; length++) {
      const context: Context = { systemPrompt: "sys", messages: all.slice(0, length) };
      const first = convertCompletionsMessages(model, context, compat);
      const again = convertCompletionsMessages(model, context, compat);
      expect(first).toEqual(fresh(context));
      expect(again).toEqual(first);
    }
  });

  it("converts afresh a message changed in place", () => {
    const messages = history();
    const context: Context = { messages };
    convertCompletionsMessages(model, context, compat);
    const call = messages[1] as AssistantMessage;
    const edits: (() => void)[] = [
      () => {
        (messages[0] as { content: string }).content = "changed";
      },
      () => {
        call.content[1] = { type: "text", text: "replaced block" };
      },
      () => {
        (call.content[0] as { thinking: string }).thinking = "edited thinking";
      },
      () => {
        (call.content[3] as { arguments: Record<string, unknown> }).arguments.path = "elsewhere.txt";
      },
      () => {
        call.content.pop();
      },
      () => {
        (messages[2] as ToolResultMessage).content.push({ type: "text", text: "more" });
      },
      () => {
        (messages[2] as ToolResultMessage).toolCallId = "c9";
      },
      () => {
        (messages[4] as { content: { type: string; data?: string }[] }).content[1] = { type: "text" };
      },
    ];
    for (const edit of edits) {
      edit();
      expect(convertCompletionsMessages(model, context, compat)).toEqual(fresh(context));
    }
  });

  it("keeps a parsed tool call's arguments from changing in place", () => {
    const call = createToolCall("c1", "edit", '{"edits":[{"oldText":"a"}]}');
    expect(() => {
      call.arguments.path = "x";
    }).toThrow(TypeError);
    expect(() => {
      (call.arguments.edits as { oldText: string }[])[0]!.oldText = "b";
    }).toThrow(TypeError);
  });

  it("converts afresh for a model with other settings", () => {
    const context: Context = { messages: history() };
    convertCompletionsMessages(model, context, compat);
    const textOnly: Model = { ...model, input: ["text"], baseUrl: "https://api.openai.com/v1" };
    expect(convertCompletionsMessages(textOnly, context, resolveCompletionsCompat(textOnly))).toEqual(
      fresh(context, textOnly),
    );
  });

  it("returns frozen messages", () => {
    const converted = convertCompletionsMessages(model, { messages: history() }, compat);
    const assistantMessage = converted.find((message) => message.role === "assistant");
    expect(Object.isFrozen(assistantMessage)).toBe(true);
  });
});

describe("serializeCompletionsRequest", () => {
  it("writes exactly the UTF-8 of what JSON.stringify writes, cached messages or not", () => {
    const tools = [{ name: "read", description: "Read", parameters: { type: "object" } }];
    const contexts: Context[] = [
      { messages: history() },
      { systemPrompt: 'quote " and \\u2028 line, ünïcödé 😀', messages: history(), tools },
    ];
    for (const context of contexts) {
      for (const options of [{}, { maxTokens: 10, temperature: 0.5, thinking: "high" as const, sessionId: "s" }]) {
        const request = buildCompletionsRequest({ ...model, reasoning: true }, context, options);
        const expected = new TextEncoder().encode(JSON.stringify(request));
        expect(serializeCompletionsRequest(request)).toEqual(expected);
        expect(serializeCompletionsRequest(request)).toEqual(expected);
      }
    }
  });
});

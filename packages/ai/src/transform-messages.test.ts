import { describe, expect, it } from "vitest";
import { transformMessages } from "./transform-messages.js";
import type { AssistantMessage, Message, Model } from "./types.js";
import { createEmptyUsage } from "./usage.js";

const model: Model = {
  id: "m1",
  name: "m1",
  api: "openai-completions",
  provider: "p1",
  baseUrl: "http://127.0.0.1:1",
  reasoning: true,
  input: ["text"],
  contextWindow: 1000,
  maxTokens: 100,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};

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

describe("transformMessages", () => {
  it("gives an orphaned tool call a synthetic error result right after its message", () => {
    const messages: Message[] = [
      { role: "user", content: "go", timestamp: 1 },
      assistant([
        { type: "toolCall", id: "a", name: "read", arguments: {} },
        { type: "toolCall", id: "b", name: "read", arguments: {} },
      ]),
      { role: "toolResult", toolCallId: "a", toolName: "read", content: [], isError: false, timestamp: 2 },
      { role: "user", content: "next", timestamp: 3 },
    ];
    const result = transformMessages(messages, model);
    expect(result.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "toolResult", "user"]);
    const synthetic = result[3];
    expect(synthetic?.role === "toolResult" && synthetic.toolCallId === "b" && synthetic.isError).toBe(true);
  });

  it("drops errored and aborted assistant messages together with their tool results", () => {
    const messages: Message[] = [
      { role: "user", content: "go", timestamp: 1 },
      assistant([{ type: "toolCall", id: "x", name: "bash", arguments: {} }], { stopReason: "aborted" }),
      { role: "toolResult", toolCallId: "x", toolName: "bash", content: [], isError: true, timestamp: 2 },
      assistant([{ type: "text", text: "partial" }], { stopReason: "error" }),
    ];
    expect(transformMessages(messages, model).map((message) => message.role)).toEqual(["user"]);
  });

  it("turns thinking from another model into text and keeps its own thinking with signature", () => {
    const foreign = assistant([{ type: "thinking", thinking: "plan", signature: "sig" }], {
      provider: "other",
      stopReason: "stop",
    });
    const own = assistant([{ type: "thinking", thinking: "mine", signature: "s2" }], { stopReason: "stop" });
    const [first, second] = transformMessages([foreign, own], model) as AssistantMessage[];
    expect(first?.content).toEqual([{ type: "text", text: "plan" }]);
    expect(second?.content).toEqual([{ type: "thinking", thinking: "mine", signature: "s2" }]);
  });

  it("normalises tool-call ids and moves results to the new id", () => {
    const messages: Message[] = [
      assistant([{ type: "toolCall", id: "call|with/odd chars", name: "ls", arguments: {} }]),
      {
        role: "toolResult",
        toolCallId: "call|with/odd chars",
        toolName: "ls",
        content: [],
        isError: false,
        timestamp: 2,
      },
    ];
    const result = transformMessages(messages, model, { normalizeToolCallId: (id) => id.replace(/[^a-z]/g, "") });
    const call = (result[0] as AssistantMessage).content[0];
    expect(call?.type === "toolCall" && call.id).toBe("callwithoddchars");
    expect(result[1]?.role === "toolResult" && result[1].toolCallId).toBe("callwithoddchars");
  });

  it("counts a result as answering its call wherever it stands, not only right after the call", () => {
    const messages: Message[] = [
      assistant([{ type: "toolCall", id: "late", name: "ls", arguments: {} }]),
      { role: "user", content: "meanwhile", timestamp: 2 },
      { role: "toolResult", toolCallId: "late", toolName: "ls", content: [], isError: false, timestamp: 3 },
    ];
    expect(transformMessages(messages, model).map((message) => message.role)).toEqual([
      "assistant",
      "user",
      "toolResult",
    ]);
  });

  it("passes unchanged messages on as the same objects and copies changed ones", () => {
    const own = assistant([{ type: "toolCall", id: "a", name: "ls", arguments: {} }]);
    const renamed = assistant([{ type: "toolCall", id: "b|c", name: "ls", arguments: {} }]);
    const foreign = assistant([{ type: "thinking", thinking: "plan" }], { provider: "other", stopReason: "stop" });
    const result = transformMessages([own, renamed, foreign], model, {
      normalizeToolCallId: (id) => id.replace("|", "_"),
    });
    expect(result[0]).toBe(own);
    expect(result[2]).not.toBe(renamed);
    expect(result.at(-1)).not.toBe(foreign);
    expect(renamed.content[0]).toMatchObject({ id: "b|c" });
  });

  describe("server tool blocks", () => {
    const call = {
      type: "serverToolCall" as const,
      id: "s1",
      name: "web_search",
      input: { query: "q" },
      raw: { type: "server_tool_use", id: "s1", name: "web_search", input: { query: "q" } },
    };
    const result = {
      type: "serverToolResult" as const,
      toolCallId: "s1",
      name: "web_search",
      results: [{ url: "https://a.example/", title: "A" }],
      raw: { type: "web_search_tool_result", tool_use_id: "s1", content: [] },
    };
    const searched = (extra: Partial<AssistantMessage> = {}) =>
      assistant([call, result, { type: "text", text: "answer" }], { stopReason: "stop", ...extra });
    const later: Message = { role: "user", content: "next", timestamp: 2 };

    it("passes them on unchanged to the API and provider that made them", () => {
      const message = searched();
      const [out] = transformMessages([message, later], model);
      expect(out).toBe(message);
    });

    it("turns them into text for another provider of the same API", () => {
      const [out] = transformMessages([searched({ provider: "p2" }), later], model);
      expect(out?.role === "assistant" && out.content).toEqual([
        { type: "text", text: '(web_search: "q")' },
        { type: "text", text: "(web_search results:\n1. A — https://a.example/)" },
        { type: "text", text: "answer" },
      ]);
    });

    it("turns a call without its provider item, or without its result before a later message, into text", () => {
      const bare = assistant(
        [
          { ...call, raw: undefined },
          { ...result, raw: undefined },
        ],
        { stopReason: "stop" },
      );
      const unanswered = assistant([call], { stopReason: "stop" });
      const out = transformMessages([bare, unanswered, later], model);
      expect(
        out.flatMap((message) => (message.role === "assistant" ? message.content.map((block) => block.type) : [])),
      ).toEqual(["text", "text", "text"]);
    });

    it("keeps an unanswered call in the last message, which a paused turn resends as is", () => {
      const paused = assistant([call], { stopReason: "stop", rawStopReason: "pause_turn" });
      expect(transformMessages([later, paused], model).at(-1)).toBe(paused);
    });
  });
});

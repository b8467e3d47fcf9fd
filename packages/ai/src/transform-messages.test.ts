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
});

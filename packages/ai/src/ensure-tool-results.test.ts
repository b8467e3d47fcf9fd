import { describe, expect, it } from "vitest";
import { ensureToolResults } from "./ensure-tool-results.js";
import type { AssistantMessage, Message, ToolResultMessage } from "./types.js";
import { createEmptyUsage } from "./usage.js";

const text = "interrupted";

function calls(timestamp: number, ...ids: string[]): AssistantMessage {
  return {
    role: "assistant",
    content: ids.map((id) => ({ type: "toolCall" as const, id, name: `tool-${id}`, arguments: {} })),
    api: "faux",
    provider: "faux",
    model: "faux",
    usage: createEmptyUsage(),
    stopReason: ids.length > 0 ? "toolUse" : "stop",
    timestamp,
  };
}

const result = (toolCallId: string): ToolResultMessage => ({
  role: "toolResult",
  toolCallId,
  toolName: `tool-${toolCallId}`,
  content: [{ type: "text", text: "ok" }],
  isError: false,
  timestamp: 9,
});

const user = (content: string): Message => ({ role: "user", content, timestamp: 1 });

/** Each message as `role:callId` (results) or its role, for readable expectations. */
const shape = (messages: readonly Message[]) =>
  messages.map((message) =>
    message.role === "toolResult" ? `${message.isError ? "synthetic" : "result"}:${message.toolCallId}` : message.role,
  );

describe("ensureToolResults", () => {
  it("returns the input array itself when every call has a result", () => {
    const messages = [user("go"), calls(1, "a", "b"), result("a"), result("b"), calls(2), user("thanks")];
    expect(ensureToolResults(messages, { text })).toBe(messages);
  });

  it("counts results in any order, and a duplicate result does not answer another call", () => {
    const swapped = [calls(1, "a", "b"), result("b"), result("a")];
    expect(ensureToolResults(swapped, { text })).toBe(swapped);
    const twice = [calls(1, "a", "b"), result("a"), result("a")];
    expect(shape(ensureToolResults(twice, { text }))).toEqual(["assistant", "result:a", "result:a", "synthetic:b"]);
  });

  it("gives each unanswered call an error result after its message's results, in call order", () => {
    const messages = [user("go"), calls(5, "a", "b", "c"), result("b"), user("next")];
    const ensured = ensureToolResults(messages, { text });
    expect(shape(ensured)).toEqual(["user", "assistant", "result:b", "synthetic:a", "synthetic:c", "user"]);
    expect(ensured[3]).toEqual({
      role: "toolResult",
      toolCallId: "a",
      toolName: "tool-a",
      content: [{ type: "text", text }],
      isError: true,
      timestamp: 5,
    });
    expect(messages).toHaveLength(4);
    expect(ensured[0]).toBe(messages[0]);
  });

  it("answers a call whose last message ends the history, and dates the result as told", () => {
    const ensured = ensureToolResults([user("go"), calls(5, "a")], { text, timestamp: 77 });
    expect(shape(ensured)).toEqual(["user", "assistant", "synthetic:a"]);
    expect(ensured[2]?.timestamp).toBe(77);
  });

  it("counts a result later in the same turn, but not one after the next assistant message", () => {
    const late = [calls(1, "a"), user("steer"), result("a")];
    expect(ensureToolResults(late, { text })).toBe(late);
    const reused = [calls(1, "x"), calls(2, "x"), result("x")];
    expect(shape(ensureToolResults(reused, { text }))).toEqual(["assistant", "synthetic:x", "assistant", "result:x"]);
  });
});

import type { AgentMessage } from "@gyre/agent";
import { type AssistantMessage, createEmptyUsage, type ToolResultMessage } from "@gyre/ai";
import { describe, expect, it } from "vitest";
import { INTERRUPTED_TOOL_RESULT, repairToolResults } from "./repair-history.js";

function assistant(...callIds: string[]): AssistantMessage {
  return {
    role: "assistant",
    content: [
      { type: "text", text: "working" },
      ...callIds.map((id) => ({ type: "toolCall" as const, id, name: "bash", arguments: { command: "true" } })),
    ],
    api: "openai-completions",
    provider: "openai",
    model: "gpt-4o",
    usage: createEmptyUsage(),
    stopReason: callIds.length > 0 ? "toolUse" : "stop",
    timestamp: 1,
  };
}

function result(toolCallId: string, text = "ok"): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName: "bash",
    content: [{ type: "text", text }],
    isError: false,
    timestamp: 2,
  };
}

const user: AgentMessage = { role: "user", content: "go", timestamp: 0 };
const ids = (messages: AgentMessage[]) =>
  messages.map((message) => (message.role === "toolResult" ? `r:${message.toolCallId}` : message.role));

describe("repairToolResults", () => {
  it("returns the very array when every call has exactly one result, in any order", () => {
    const messages = [user, assistant("a", "b"), result("b"), result("a"), assistant()];
    expect(repairToolResults(messages)).toEqual({ messages, repaired: 0 });
    expect(repairToolResults(messages).messages).toBe(messages);
  });

  it("adds an interrupted result for a call without one, after the results that exist", () => {
    const { messages, repaired } = repairToolResults([user, assistant("a", "b", "c"), result("a"), result("c")]);
    expect(repaired).toBe(1);
    expect(ids(messages)).toEqual(["user", "assistant", "r:a", "r:c", "r:b"]);
    expect(messages[4]).toMatchObject({ isError: true, content: [{ text: INTERRUPTED_TOOL_RESULT }] });
  });

  it("drops a result that answers no call, one that comes late, and a second result for a call", () => {
    const stray = repairToolResults([user, result("x"), assistant("a"), result("a"), result("a"), result("z")]);
    expect(ids(stray.messages)).toEqual(["user", "assistant", "r:a"]);
    expect(stray.repaired).toBe(0);
    const late = repairToolResults([user, assistant("a"), user, result("a")]);
    expect(ids(late.messages)).toEqual(["user", "assistant", "r:a", "user"]);
    expect(late.repaired).toBe(1);
  });

  it("gives repeated call ids distinct ones, each result paired with the call of its turn", () => {
    const { messages } = repairToolResults([user, assistant("a", "a"), result("a", "one"), result("a", "two")]);
    const calls = (messages[1] as AssistantMessage).content.flatMap((block) =>
      block.type === "toolCall" ? [block.id] : [],
    );
    expect(calls).toEqual(["a", "a_2"]);
    expect(messages.slice(2).map((message) => (message as ToolResultMessage).toolCallId)).toEqual(["a", "a_2"]);
  });
});

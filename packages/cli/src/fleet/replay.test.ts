import type { AgentMessage } from "@gyre/agent";
import { describe, expect, it } from "vitest";
import { compareRequests, recordedRequests, shortDiff } from "./replay.js";

const call = (id: string, command: string) => ({ type: "toolCall", id, name: "bash", arguments: { command } });
const assistant = (content: unknown[], stopReason = "toolUse") => ({ role: "assistant", content, stopReason });
const result = (toolCallId: string, text: string) => ({
  role: "toolResult",
  toolCallId,
  toolName: "bash",
  isError: false,
  content: [{ type: "text", text }],
});

const session = [
  { role: "user", content: "first" },
  assistant([call("a", "ls")]),
  result("a", "one.txt"),
  assistant([{ type: "text", text: "cut" }], "aborted"),
  { role: "user", content: [{ type: "text", text: "second" }] },
  assistant([call("b", "pwd"), call("c", "date")]),
  result("b", "/w"),
  result("c", "today"),
  assistant([call("d", "echo x")]),
  result("d", "x"),
  assistant([{ type: "text", text: "done" }], "stop"),
] as unknown as AgentMessage[];

describe("recordedRequests", () => {
  it("splits a session at each user message and numbers each result by the response that asked for it", () => {
    const requests = recordedRequests(session);
    expect(requests.map((request) => request.prompt)).toEqual(["first", "second"]);
    // The aborted response was cut by the harness, not said by the model: it is not replayed.
    expect(requests[0]?.script).toHaveLength(1);
    expect(requests[1]?.script).toHaveLength(3);
    expect(requests[1]?.results.map((entry) => [entry.toolCallId, entry.turn])).toEqual([
      ["b", 1],
      ["c", 1],
      ["d", 2],
    ]);
  });

  it("throws when the session holds no user message", () => {
    expect(() => recordedRequests([])).toThrow(/nothing to replay/);
  });
});

describe("compareRequests", () => {
  it("reports a changed result and a missing one with their request and turn, and treats workspace paths as equal", () => {
    const recorded = recordedRequests(session);
    const replayed = recordedRequests(
      session
        .map((message): AgentMessage => {
          if (message.role !== "toolResult") return message;
          if (message.toolCallId === "a") return { ...message, content: [{ type: "text" as const, text: "two.txt" }] };
          if (message.toolCallId === "b") return { ...message, content: [{ type: "text" as const, text: "/r" }] };
          return message;
        })
        .filter((message) => !(message.role === "toolResult" && message.toolCallId === "d")),
    );
    const differences = compareRequests(recorded, replayed, { recorded: "/w", replayed: "/r" });
    expect(differences.map((difference) => [difference.request, difference.turn, difference.arguments])).toEqual([
      [1, 1, '{"command":"ls"}'],
      [2, 2, '{"command":"echo x"}'],
    ]);
    expect(differences[1]?.replayed).toBeUndefined();
  });
});

describe("shortDiff", () => {
  it("shows the changed lines between the common start and end, with the line where they part", () => {
    expect(shortDiff("a\nb\nc\nd", "a\nB\nc\nd")).toEqual(["@@ line 2", "- b", "+ B"]);
    expect(shortDiff("a", "a\nextra")).toEqual(["@@ line 2", "+ extra"]);
  });

  it("cuts long changes to a few lines and says how many more", () => {
    const many = Array.from({ length: 6 }, (_, index) => `line ${index}`).join("\n");
    expect(shortDiff(many, "other", 2)).toEqual(["@@ line 1", "- line 0", "- line 1", "- … 4 more line(s)", "+ other"]);
  });
});

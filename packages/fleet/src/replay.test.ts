import type { AgentMessage } from "@gyre/agent";
import { describe, expect, it } from "vitest";
import { compareRequests, maskVolatile, recordedRequests, shortDiff } from "./replay.js";

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

describe("volatile output in a replay", () => {
  const tap = (ms: string, at: string) =>
    `TAP version 13\nok 1 - adds\n# duration_ms ${ms}\n...\n1..3\n# run at ${at}\n# tests 3 (12 ms)\nseed 4242`;
  const one = (text: string) => [
    { prompt: "go", script: [], results: [{ toolCallId: "c1", toolName: "bash", isError: false, text, turn: 1 }] },
  ];

  it("masks durations, timestamps and clock times on both sides, and what --ignore names", () => {
    const recorded = one(tap("344.531821", "2026-12-01T10:00:01.123Z"));
    const replayed = one(tap("656.762746", "2026-12-02T05:59:59Z").replace("seed 4242", "seed 9"));
    const workspaces = { recorded: "/w", replayed: "/r" };
    const differences = compareRequests(recorded, replayed, workspaces);
    expect(differences).toHaveLength(1);
    expect(shortDiff(differences[0]?.recorded?.text ?? "", differences[0]?.replayed?.text ?? "")).toEqual([
      "@@ line 8",
      "- seed 4242",
      "+ seed 9",
    ]);
    expect(compareRequests(recorded, replayed, workspaces, [/seed \d+/g])).toEqual([]);
  });

  it("still reports a real change next to a masked one", () => {
    const differences = compareRequests(one(tap("1", "x")), one(tap("2", "x").replace("ok 1", "not ok 1")), {
      recorded: "",
      replayed: "",
    });
    expect(differences).toHaveLength(1);
    expect(maskVolatile("took 12.5 s at 10:01:02, # duration_ms 3")).toBe(
      "took <n> s at <volatile>, # duration_ms <n>",
    );
  });
});

describe("shortDiff on a change between identical lines", () => {
  it("lists only the changed lines, not the identical ones between the first and last change", () => {
    expect(shortDiff("a\n...\n1..3\nb", "A\n...\n1..3\nB")).toEqual(["@@ line 1", "- a", "- b", "+ A", "+ B"]);
  });
});

import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { copyFixture, fixturePath, userMessage } from "../../../test/session/helpers.js";
import { readSessionFile } from "./read-session.js";
import { SessionManager } from "./session-manager.js";

describe("reading v1 session files", () => {
  it("loads a good file: header, tree, current branch, labels and name", async () => {
    const session = await SessionManager.open(fixturePath("good.jsonl"), { readOnly: true });
    expect(session.header).toMatchObject({
      version: 1,
      id: "0b6f3c1e-8a52-4d7e-9f10-2c3d4e5f6a7b",
      cwd: "/work/project",
    });
    expect(session.problems).toEqual([]);
    expect(session.leafId).toBe("a0000008");
    expect(session.getBranch().map((entry) => entry.id)).toEqual([
      "a0000001",
      "a0000002",
      "a0000003",
      "a0000004",
      "a0000005",
      "a0000006",
      "a0000007",
      "a0000008",
    ]);
    expect(session.getLabel("a0000004")).toBe("first read");
    expect(session.getName()).toBe("readme check");
    const context = session.buildContext();
    expect(context.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(context.model).toEqual({ provider: "faux", modelId: "faux-1" });
    expect(context.thinkingLevel).toBe("low");
  });

  it("skips a torn last line, then appends on a new line without rewriting the file", async () => {
    const path = await copyFixture("torn-tail.jsonl");
    const before = await readFile(path, "utf8");
    const session = await SessionManager.open(path);
    expect(session.problems).toEqual([{ line: 10, message: expect.stringContaining("incomplete") }]);
    expect(session.leafId).toBe("a0000008");
    const id = session.appendMessage(userMessage("continue"));
    await session.close();
    const after = await readFile(path, "utf8");
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length, before.length + 1)).toBe("\n");
    const lines = after.slice(before.length + 1).split("\n");
    expect(JSON.parse(lines[0] as string)).toMatchObject({ type: "message", id, parentId: "a0000008" });
    const reopened = await SessionManager.open(path, { readOnly: true });
    expect(reopened.problems).toEqual([{ line: 10, message: expect.stringContaining("not valid JSON") }]);
    expect(reopened.leafId).toBe(id);
  });

  it("reports a garbage line in the middle by its line number and keeps the rest", async () => {
    const session = await SessionManager.open(fixturePath("garbage-middle.jsonl"), { readOnly: true });
    expect(session.problems).toEqual([{ line: 5, message: expect.stringContaining("not valid JSON") }]);
    expect(session.getBranch()).toHaveLength(8);
  });

  it("skips a NUL block and a NUL run in front of a good line", async () => {
    const session = await SessionManager.open(fixturePath("nul-block.jsonl"), { readOnly: true });
    expect(session.problems).toEqual([
      { line: 4, message: "512 NUL bytes skipped" },
      { line: 7, message: "64 NUL bytes skipped" },
    ]);
    expect(session.getBranch().map((entry) => entry.id)).toContain("a0000005");
    expect(session.getBranch()).toHaveLength(8);
  });

  it("reads a future format version's valid entries and says to update gyre before continuing it", async () => {
    const loaded = await readSessionFile(fixturePath("future-version.jsonl"));
    expect(loaded.headerProblem).toMatch(/format version 2, but this gyre reads only version 1; update gyre/);
    expect(loaded.tree.branch(loaded.tree.lastId())).toHaveLength(8);
  });

  it("refuses a file that is not a session", async () => {
    await expect(readSessionFile(fixturePath("../../helpers.ts"))).rejects.toThrow(/not a session header/);
    await expect(readSessionFile(fixturePath("missing.jsonl"))).rejects.toThrow(/no such file/);
  });

  it("gives an orphaned tool call a synthetic interrupted result, never re-running it", async () => {
    const session = await SessionManager.open(fixturePath("orphaned-tool-call.jsonl"), { readOnly: true });
    const messages = session.buildContext().messages;
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(messages[2]).toMatchObject({ toolCallId: "call_run", toolName: "bash", isError: true });
    expect(JSON.stringify(messages[2])).toContain("was not re-run");
  });

  it("adds exactly one synthetic result for three parallel calls with two results", async () => {
    const path = await copyFixture("parallel-calls-two-results.jsonl");
    const session = await SessionManager.open(path);
    expect(session.buildContext().messages.filter((message) => message.role === "toolResult")).toHaveLength(3);
    expect(session.repairInterruptedToolCalls()).toBe(1);
    expect(session.repairInterruptedToolCalls()).toBe(0);
    await session.close();
    const reopened = await SessionManager.open(path, { readOnly: true });
    const results = reopened
      .buildContext()
      .messages.flatMap((message) => (message.role === "toolResult" ? [message.toolCallId] : []));
    expect(results).toEqual(["call_a", "call_c", "call_b"]);
  });
});

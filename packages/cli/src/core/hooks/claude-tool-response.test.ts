import { describe, expect, it } from "vitest";
import { claudeToolResponse } from "./claude-tool-response.js";

describe("tool_response for PostToolUse", () => {
  it("gives an edit's strings and a read's file as Claude Code's hooks read them", () => {
    const edit = claudeToolResponse({
      toolName: "edit",
      toolInput: { file_path: "/w/a.ts", old_string: "a", new_string: "b" },
      output: "Edited a.ts",
      details: { diff: "-a\n+b" },
    });
    expect(edit).toMatchObject({ filePath: "/w/a.ts", oldString: "a", newString: "b", replaceAll: false });
    const read = claudeToolResponse({
      toolName: "read",
      toolInput: { file_path: "/w/a.ts" },
      output: "one\ntwo",
      details: { kind: "text", startLine: 3, endLine: 4, totalLines: 9 },
    });
    expect(read).toMatchObject({
      type: "text",
      file: { filePath: "/w/a.ts", content: "one\ntwo", numLines: 2, startLine: 3, totalLines: 9 },
    });
    const write = claudeToolResponse({
      toolName: "write",
      toolInput: { file_path: "/w/b.ts", content: "x" },
      output: "Wrote",
      details: { created: false },
    });
    expect(write).toMatchObject({ type: "update", filePath: "/w/b.ts", content: "x", success: true });
  });
});

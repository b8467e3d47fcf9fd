import { describe, expect, it } from "vitest";
import { claudeToolInput, claudeToolName, gyreToolArgs, hookMatchTargets } from "./claude-tool-names.js";

describe("Claude Code's tool names for hooks", () => {
  it("names the built-ins as Claude Code does, background shells included, and keeps the rest", () => {
    expect(claudeToolName("find")).toBe("Glob");
    expect(claudeToolName("bash_output")).toBe("BashOutput");
    expect(claudeToolName("kill_shell")).toBe("KillShell");
    expect(claudeToolName("mcp__github__create_issue")).toBe("mcp__github__create_issue");
    expect(claudeToolName("diagnostics")).toBe("diagnostics");
  });

  it("adds file_path and the one edit's strings, and maps a hook's updatedInput back", () => {
    const input = claudeToolInput("edit", { path: "src/a.ts", edits: [{ oldText: "a", newText: "b" }] }, "/w");
    expect(input).toMatchObject({ file_path: "/w/src/a.ts", old_string: "a", new_string: "b" });
    const args = gyreToolArgs(
      "edit",
      { path: "src/a.ts", edits: [] },
      { file_path: "/w/b.ts", old_string: "x", new_string: "y" },
    );
    expect(args).toEqual({ path: "/w/b.ts", edits: [{ oldText: "x", newText: "y" }] });
  });

  it("names an edit with several changes MultiEdit, matchable as Edit too, and maps its edits both ways", () => {
    const edits = [
      { oldText: "a", newText: "b" },
      { oldText: "c", newText: "d" },
    ];
    expect(claudeToolName("edit", { path: "x", edits })).toBe("MultiEdit");
    expect(claudeToolName("edit", { path: "x", edits: edits.slice(1) })).toBe("Edit");
    expect(hookMatchTargets("edit", { path: "x", edits })).toEqual(["MultiEdit", "Edit"]);
    expect(hookMatchTargets("write", { path: "x" })).toEqual(["Write"]);
    const input = claudeToolInput("edit", { path: "x", edits }, "/w");
    expect(input.edits).toEqual([
      { oldText: "a", newText: "b", old_string: "a", new_string: "b" },
      { oldText: "c", newText: "d", old_string: "c", new_string: "d" },
    ]);
    const updated = {
      edits: [
        { ...(input.edits as object[])[0], new_string: "B" },
        { old_string: "c", new_string: "D" },
      ],
    };
    expect(gyreToolArgs("edit", { path: "x", edits }, updated)).toEqual({
      path: "x",
      edits: [
        { oldText: "a", newText: "B" },
        { oldText: "c", newText: "D" },
      ],
    });
  });
});

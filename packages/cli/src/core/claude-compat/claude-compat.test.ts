import { describe, expect, it } from "vitest";
import { mapClaudeRule } from "./claude-compat.js";

describe("Claude Code permission rules as gyre's (docs/claude-compat.md#permission-rules)", () => {
  it("maps Claude's rule syntax onto gyre's", () => {
    const at = { projectDir: "/p" };
    expect(mapClaudeRule("Bash(npm test:*)", "allow", at)).toEqual(["bash(npm test:*)"]);
    expect(mapClaudeRule("MultiEdit", "deny", at)).toEqual(["edit"]);
    expect(mapClaudeRule("Glob(*.ts)", "allow", at)).toEqual(["find(*.ts)"]);
    expect(mapClaudeRule("KillShell", "deny", at)).toEqual(["kill_shell"]);
    expect(mapClaudeRule("BashOutput", "allow", at)).toEqual(["bash_output"]);
    expect(mapClaudeRule("mcp__github__create_issue", "ask", at)).toEqual(["mcp__github__create_issue"]);
    expect(mapClaudeRule("WebFetch(domain:example.com)", "allow", at)).toEqual([]);
    expect(mapClaudeRule("NotebookEdit", "deny", at)).toEqual([]);
  });

  it("maps each of Claude's path forms onto gyre's", () => {
    const at = { projectDir: "/p" };
    expect(mapClaudeRule("Read(//etc/secrets/**)", "deny", at)).toEqual(["read(/etc/secrets/**)"]);
    expect(mapClaudeRule("Read(~/.ssh/**)", "deny", at)).toEqual(["read(~/.ssh/**)"]);
    expect(mapClaudeRule("Read(/config/*.json)", "deny", at)).toEqual(["read(/p/config/*.json)"]);
    expect(mapClaudeRule("Read(./src/**)", "allow", at)).toEqual(["read(src/**)"]);
    expect(mapClaudeRule("Read(*.env)", "deny", at)).toEqual(["read(*.env)"]);
  });

  it("lets an Edit rule cover every tool that changes files, as Claude's does", () => {
    const at = { projectDir: "/p" };
    expect(mapClaudeRule("Edit", "deny", at)).toEqual(["edit", "write"]);
    expect(mapClaudeRule("Edit(/src/**)", "deny", at)).toEqual(["edit(/p/src/**)", "write(/p/src/**)"]);
    expect(mapClaudeRule("Edit(~/notes.md)", "allow", at)).toEqual(["edit(~/notes.md)", "write(~/notes.md)"]);
    // The bare tool name is the Write tool alone.
    expect(mapClaudeRule("Write", "deny", at)).toEqual(["write"]);
    // Claude matches paths on Edit rules only: a Write(path) deny reads as Edit(path), an allow gives nothing.
    expect(mapClaudeRule("Write(./.env)", "deny", at)).toEqual(["edit(.env)", "write(.env)"]);
    expect(mapClaudeRule("MultiEdit(//etc/**)", "ask", at)).toEqual(["edit(/etc/**)", "write(/etc/**)"]);
    expect(mapClaudeRule("Write(src/**)", "allow", at)).toEqual([]);
  });
});

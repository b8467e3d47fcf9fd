import { describe, expect, it } from "vitest";
import { toolKind, toolTitle } from "./acp-tool-calls.js";

describe("ACP tool call kinds and titles", () => {
  it("names background shells and diagnostics as an editor lists them", () => {
    expect(toolKind("bash_output")).toBe("read");
    expect(toolKind("kill_shell")).toBe("execute");
    expect(toolKind("diagnostics")).toBe("read");
    expect(toolTitle("bash", { command: "npm run dev", run_in_background: true })).toBe(
      "Run `npm run dev` in the background",
    );
    expect(toolTitle("bash", { command: "ls" })).toBe("Run `ls`");
    expect(toolTitle("bash_output", { id: "shell-1" })).toBe("Read background shell shell-1");
    expect(toolTitle("kill_shell", {})).toBe("Stop background shell");
    expect(toolTitle("diagnostics", { path: "src/a.ts" })).toBe("Diagnostics of src/a.ts");
    expect(toolKind("mcp__memory__read_graph")).toBe("other");
  });
});

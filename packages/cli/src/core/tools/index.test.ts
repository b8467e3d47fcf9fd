import { readFile, writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import type { AnyAgentTool } from "@gyre/agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTempDir, toolContext } from "../../../test/tools/helpers.js";
import { createCodingTools, DEFAULT_TOOL_NAMES } from "./index.js";

describe("createCodingTools", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await createTempDir());
  });
  afterEach(() => cleanup());
  const byName = (tools: AnyAgentTool[], name: string) => tools.find((tool) => tool.name === name) as AnyAgentTool;

  it("creates all seven tools (bash with bash_output and kill_shell), or the ones named, with JSON-schema parameters", () => {
    expect(createCodingTools({ cwd: dir }).map((tool) => tool.name)).toEqual([
      "read",
      "write",
      "edit",
      "bash",
      "bash_output",
      "kill_shell",
      "ls",
      "grep",
      "find",
    ]);
    const defaults = createCodingTools({ cwd: dir, tools: DEFAULT_TOOL_NAMES });
    expect(defaults.map((tool) => tool.name)).toEqual(["read", "write", "edit", "bash", "bash_output", "kill_shell"]);
    expect(createCodingTools({ cwd: dir, tools: ["read", "grep"] }).map((tool) => tool.name)).toEqual(["read", "grep"]);
    for (const tool of defaults) expect(tool.parameters).toMatchObject({ type: "object" });
  });

  it("shares one read-state between read and edit, so a stale edit is refused", async () => {
    const tools = createCodingTools({ cwd: dir });
    await writeFile(nodePath.join(dir, "a.txt"), "one\n");
    await byName(tools, "read").execute({ path: "a.txt" }, toolContext());
    await writeFile(nodePath.join(dir, "a.txt"), "one two\n");
    await expect(
      byName(tools, "edit").execute({ path: "a.txt", edits: [{ oldText: "one", newText: "1" }] }, toolContext()),
    ).rejects.toThrow(/changed on disk/);
    await byName(tools, "write").execute({ path: "a.txt", content: "fresh\n" }, toolContext());
    await byName(tools, "edit").execute(
      { path: "a.txt", edits: [{ oldText: "fresh", newText: "edited" }] },
      toolContext(),
    );
    expect(await readFile(nodePath.join(dir, "a.txt"), "utf8")).toBe("edited\n");
  });

  it("applies the allowed paths to every file tool", async () => {
    const outside = await createTempDir();
    try {
      await writeFile(nodePath.join(outside.dir, "b.txt"), "outside");
      const target = nodePath.join(outside.dir, "b.txt");
      const confined = createCodingTools({ cwd: dir, tools: ["read"] });
      await expect(byName(confined, "read").execute({ path: target }, toolContext())).rejects.toThrow(
        /workspace policy/,
      );
      const allowed = createCodingTools({ cwd: dir, tools: ["read"], allowedPaths: [outside.dir] });
      const result = await byName(allowed, "read").execute({ path: target }, toolContext());
      expect(result.content[0]).toEqual({ type: "text", text: "outside" });
    } finally {
      await outside.cleanup();
    }
  });
});

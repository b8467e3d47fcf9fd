import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildSystemPrompt } from "./build-system-prompt.js";
import { loadContextFiles } from "./context-files.js";

describe("context files", () => {
  it("finds AGENTS.md from gyre home and every folder down to cwd, general first", async () => {
    const root = await mkdtemp(join(tmpdir(), "gyre-ctx-"));
    const home = join(root, "home");
    const cwd = join(root, "repo", "pkg");
    await mkdir(home, { recursive: true });
    await mkdir(cwd, { recursive: true });
    await writeFile(join(home, "AGENTS.md"), "global rules");
    await writeFile(join(root, "repo", "CLAUDE.md"), "repo rules");
    await writeFile(join(cwd, "AGENTS.md"), "package rules");
    await writeFile(join(cwd, "CLAUDE.md"), "ignored: AGENTS.md wins");
    const files = await loadContextFiles({ cwd, gyreHome: home });
    expect(files.map((file) => file.content)).toEqual(["global rules", "repo rules", "package rules"]);
    const prompt = buildSystemPrompt({ cwd, toolNames: ["read"], contextFiles: files, date: new Date("2026-01-02") });
    expect(prompt.indexOf("global rules")).toBeLessThan(prompt.indexOf("package rules"));
    expect(prompt).toContain("Current date: 2026-01-02");
    expect(prompt).toContain(`Current working directory: ${cwd}`);
  });

  it("replaces the default prompt and appends extra text", () => {
    const prompt = buildSystemPrompt({
      cwd: "/w",
      toolNames: ["read"],
      contextFiles: [],
      customPrompt: "Custom.",
      appendPrompts: ["Extra."],
    });
    expect(prompt.startsWith("Custom.")).toBe(true);
    expect(prompt).toContain("Extra.");
    expect(prompt).not.toContain("You are gyre");
  });
});

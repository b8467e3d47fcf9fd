import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPromptTemplates, splitToolList } from "./prompt-templates.js";

describe("prompt templates", () => {
  it("reads allowed-tools as a line or a list, model and argument-hint from the front-matter", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gyre-templates-"));
    try {
      await writeFile(
        join(dir, "commit.md"),
        "---\nallowed-tools: Bash(git add:*), Bash(git commit -m:*) Read\nmodel: haiku\nargument-hint: <message>\n---\nCommit: $1\n",
      );
      await writeFile(join(dir, "look.md"), "---\nallowed-tools:\n  - Grep\n  - Bash(ls -la:*)\n---\nLook around.\n");
      await writeFile(join(dir, "plain.md"), "Just a prompt.\n");
      const byName = Object.fromEntries((await loadPromptTemplates([dir])).map((t) => [t.name, t]));
      expect(byName.commit).toMatchObject({
        allowedTools: ["Bash(git add:*)", "Bash(git commit -m:*)", "Read"],
        model: "haiku",
        argumentHint: "<message>",
      });
      expect(byName.look?.allowedTools).toEqual(["Grep", "Bash(ls -la:*)"]);
      expect(byName.plain).not.toHaveProperty("allowedTools");
      expect(byName.plain).not.toHaveProperty("model");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("splits a tool line at commas and spaces outside parentheses", () => {
    expect(splitToolList("Bash(npm run test:*),Edit  Write")).toEqual(["Bash(npm run test:*)", "Edit", "Write"]);
    expect(splitToolList("")).toEqual([]);
  });
});

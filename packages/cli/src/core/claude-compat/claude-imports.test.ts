import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findAtReferences, importedContextFiles, maskCode } from "./claude-imports.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "gyre-claude-imports-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(path: string, text: string): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

describe("CLAUDE.md @path imports", () => {
  it("finds references outside code spans and fenced blocks, without the sentence's full stop", () => {
    const text = "See @README.md. Also `@not/this.md` and a@b.com\n```sh\n@not/that.md\n```\n- git: @docs/git.md\n";
    expect(findAtReferences(text).map((found) => found.path)).toEqual(["README.md", "docs/git.md"]);
    expect(maskCode(text)).toHaveLength(text.length);
  });

  it("follows relative, ~/ and absolute imports five hops deep, each file once", async () => {
    const home = join(root, "home");
    const project = join(root, "project");
    const absolute = await put(join(root, "elsewhere", "abs.md"), "Absolute file.\n");
    await put(join(home, ".claude", "mine.md"), "Mine: back to @../../project/CLAUDE.md\n");
    // A chain of six hops from CLAUDE.md: the sixth is not read.
    for (let hop = 1; hop <= 6; hop++)
      await put(join(project, "docs", `hop${hop}.md`), `Hop ${hop}.${hop < 6 ? ` Next: @hop${hop + 1}.md` : ""}\n`);
    const claude = {
      path: join(project, "CLAUDE.md"),
      content: `Start @docs/hop1.md and @~/.claude/mine.md and @${absolute} and @missing.md\n`,
    };
    const seen = new Set([claude.path]);
    const files = await importedContextFiles(claude, { home, seen });
    expect(files.map((file) => file.path)).toEqual([
      ...[1, 2, 3, 4, 5].map((hop) => join(project, "docs", `hop${hop}.md`)),
      join(home, ".claude", "mine.md"),
      absolute,
    ]);
    expect(files[4]?.content).toContain("Hop 5.");
  });
});

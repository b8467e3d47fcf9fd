import { readFile, writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTempDir, textOf, toolContext } from "../../../test/tools/helpers.js";
import { createEditTool, prepareEditArguments } from "./edit-tool.js";
import { createFileQueue } from "./file-queue.js";
import { createReadState } from "./read-state.js";
import { createReadTool } from "./read-tool.js";

describe("edit tool", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await createTempDir());
  });
  afterEach(() => cleanup());
  const file = (name: string) => nodePath.join(dir, name);
  const edit = (tool: ReturnType<typeof createEditTool>, path: string, edits: { oldText: string; newText: string }[]) =>
    tool.execute({ path, edits }, toolContext());

  it("replaces text and reports a unified diff and the first changed line", async () => {
    await writeFile(file("a.ts"), "one\ntwo\nthree\nfour\n");
    const result = await edit(createEditTool({ cwd: dir }), "a.ts", [{ oldText: "three", newText: "3" }]);
    expect(await readFile(file("a.ts"), "utf8")).toBe("one\ntwo\n3\nfour\n");
    expect(textOf(result)).toBe("Applied 1 edit to a.ts.");
    expect(result.details?.firstChangedLine).toBe(3);
    expect(result.details?.diff).toBe("--- a/a.ts\n+++ b/a.ts\n@@ -1,5 +1,5 @@\n one\n two\n-three\n+3\n four\n \n");
  });

  it("accepts a single oldText/newText through prepareArguments", () => {
    expect(prepareEditArguments({ path: "a", oldText: "x", newText: "y" })).toEqual({
      path: "a",
      edits: [{ oldText: "x", newText: "y" }],
    });
    expect(prepareEditArguments({ path: "a", old_string: "x", new_string: "y" })).toEqual({
      path: "a",
      edits: [{ oldText: "x", newText: "y" }],
    });
    expect(prepareEditArguments({ path: "a", edits: '[{"oldText":"x","newText":"y"}]' }).edits).toEqual([
      { oldText: "x", newText: "y" },
    ]);
  });

  it("matches every edit against the original and applies them together", async () => {
    await writeFile(file("a.ts"), "alpha\nbeta\ngamma\n");
    await edit(createEditTool({ cwd: dir }), "a.ts", [
      { oldText: "gamma", newText: "beta" },
      { oldText: "beta", newText: "B" },
    ]);
    expect(await readFile(file("a.ts"), "utf8")).toBe("alpha\nB\nbeta\n");
  });

  it("keeps CRLF line endings and the BOM", async () => {
    await writeFile(file("win.txt"), "\uFEFFfirst\r\nsecond\r\nthird\r\n");
    await edit(createEditTool({ cwd: dir }), "win.txt", [
      { oldText: "second\nthird", newText: "2nd\nline two\nthird" },
    ]);
    const bytes = await readFile(file("win.txt"));
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(bytes.subarray(3).toString("utf8")).toBe("first\r\n2nd\r\nline two\r\nthird\r\n");
  });

  it("round-trips UTF-16LE files with their BOM", async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo wörld\n", "utf16le")]);
    await writeFile(file("u16.txt"), utf16);
    await edit(createEditTool({ cwd: dir }), "u16.txt", [{ oldText: "wörld", newText: "welt" }]);
    expect(await readFile(file("u16.txt"))).toEqual(
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo welt\n", "utf16le")]),
    );
  });

  it("falls back to a normalised match and replaces the original span", async () => {
    await writeFile(file("q.ts"), "const s = \u201Chello\u201D;   \nconst d = a \u2013 b;\nkeep\u00A0me\n");
    const result = await edit(createEditTool({ cwd: dir }), "q.ts", [
      { oldText: 'const s = "hello";\nconst d = a - b;', newText: "const s = 'hi';\nconst d = a + b;" },
    ]);
    expect(await readFile(file("q.ts"), "utf8")).toBe("const s = 'hi';\nconst d = a + b;\nkeep\u00A0me\n");
    expect(result.details?.normalisedEdits).toEqual([0]);
    expect(textOf(result)).toMatch(/matched after normalising/);
  });

  it("refuses an ambiguous oldText and names the lines", async () => {
    await writeFile(file("a.ts"), "x = 1\ny = 2\nx = 1\n");
    await expect(edit(createEditTool({ cwd: dir }), "a.ts", [{ oldText: "x = 1", newText: "x = 3" }])).rejects.toThrow(
      /oldText matches 2 places in a\.ts \(lines 1, 3\).*include more surrounding lines/,
    );
    expect(await readFile(file("a.ts"), "utf8")).toBe("x = 1\ny = 2\nx = 1\n");
  });

  it("refuses an oldText that is not there, pointing at the edit", async () => {
    await writeFile(file("a.ts"), "function main() {\n  run();\n}\n");
    const tool = createEditTool({ cwd: dir });
    await expect(
      edit(tool, "a.ts", [
        { oldText: "run();", newText: "go();" },
        { oldText: "function main() {\n  walk();", newText: "" },
      ]),
    ).rejects.toThrow(/edits\[1\]\.oldText was not found in a\.ts.*first line appears at line 1/);
    expect(await readFile(file("a.ts"), "utf8")).toBe("function main() {\n  run();\n}\n");
  });

  it("refuses overlapping edits", async () => {
    await writeFile(file("a.ts"), "abcdef\n");
    await expect(
      edit(createEditTool({ cwd: dir }), "a.ts", [
        { oldText: "abcd", newText: "x" },
        { oldText: "cdef", newText: "y" },
      ]),
    ).rejects.toThrow(/edits\[0\] and edits\[1\] overlap.*merge them/);
  });

  it("refuses a stale edit after the file changed on disk, and allows it after a re-read", async () => {
    await writeFile(file("a.ts"), "v1\n");
    const readState = createReadState();
    const read = createReadTool({ cwd: dir, readState });
    const tool = createEditTool({ cwd: dir, readState });
    await read.execute({ path: "a.ts" }, toolContext());
    await writeFile(file("a.ts"), "v1 changed elsewhere\n");
    await expect(edit(tool, "a.ts", [{ oldText: "v1", newText: "v2" }])).rejects.toThrow(
      /changed on disk since you last read it.*Read it again/,
    );
    await read.execute({ path: "a.ts" }, toolContext());
    await edit(tool, "a.ts", [{ oldText: "v1", newText: "v2" }]);
    // Its own write counts as seen: a second edit is not stale.
    await edit(tool, "a.ts", [{ oldText: "v2", newText: "v3" }]);
    expect(await readFile(file("a.ts"), "utf8")).toBe("v3 changed elsewhere\n");
  });

  it("allows editing a file never read in this session", async () => {
    await writeFile(file("a.ts"), "old\n");
    await edit(createEditTool({ cwd: dir, readState: createReadState() }), "a.ts", [
      { oldText: "old", newText: "new" },
    ]);
    expect(await readFile(file("a.ts"), "utf8")).toBe("new\n");
  });

  it("applies two parallel edits of one file both", async () => {
    await writeFile(file("a.ts"), "first\nsecond\n");
    const fileQueue = createFileQueue();
    const readState = createReadState();
    const one = createEditTool({ cwd: dir, fileQueue, readState });
    const two = createEditTool({ cwd: dir, fileQueue, readState });
    await Promise.all([
      edit(one, "a.ts", [{ oldText: "first", newText: "1" }]),
      edit(two, "a.ts", [{ oldText: "second", newText: "2" }]),
    ]);
    expect(await readFile(file("a.ts"), "utf8")).toBe("1\n2\n");
  });

  it("refuses edits that change nothing and files that are not UTF-8", async () => {
    await writeFile(file("a.ts"), "same\n");
    const tool = createEditTool({ cwd: dir });
    await expect(edit(tool, "a.ts", [{ oldText: "same", newText: "same" }])).rejects.toThrow(/unchanged/);
    await writeFile(file("latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    await expect(edit(tool, "latin1.txt", [{ oldText: "caf", newText: "bar" }])).rejects.toThrow(/not valid UTF-8/);
    await expect(edit(tool, "missing.ts", [{ oldText: "a", newText: "b" }])).rejects.toThrow(
      /File not found.*use write/,
    );
  });
});

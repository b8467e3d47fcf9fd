import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import type { AnyAgentTool } from "@gyre/agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCodingTools } from "../../src/core/tools/index.js";
import { createTempDir, textOf, toolContext } from "./helpers.js";

/** `caf` + the Latin-1 byte of "é" + `suffix`: a name that is not UTF-8. */
const latin1 = (prefix: string, suffix: string) =>
  Buffer.concat([Buffer.from(prefix), Buffer.of(0xe9), Buffer.from(suffix)]);

describe("file names that are not UTF-8", () => {
  let root: string;
  let dir: string;
  let cleanup: () => Promise<void>;
  let tools: Record<string, AnyAgentTool>;
  const bytesPath = (...parts: Buffer[]) => Buffer.concat([Buffer.from(`${dir}/`), ...parts]);
  const run = async (name: string, args: Record<string, unknown>) =>
    textOf(await (tools[name] as AnyAgentTool).execute(args, toolContext()));

  beforeEach(async () => {
    ({ dir: root, cleanup } = await createTempDir());
    dir = nodePath.join(root, "proj");
    await mkdir(dir);
    await writeFile(bytesPath(latin1("caf", ".txt")), "first line\nneedle here\n");
    await mkdir(bytesPath(latin1("d", "")));
    await writeFile(bytesPath(latin1("d", "/"), latin1("n", ".md")), "nested needle\n");
    await writeFile(nodePath.join(dir, "plain.txt"), "needle too\n");
    tools = Object.fromEntries(
      createCodingTools({ cwd: dir, tools: ["read", "write", "edit", "ls", "grep", "find"] }).map((tool) => [
        tool.name,
        tool,
      ]),
    );
  });
  afterEach(() => cleanup());

  it("ls, find and grep show the names with \\xHH escapes instead of U+FFFD", async () => {
    expect(await run("ls", {})).toBe("caf\\xE9.txt\nd\\xE9/\nplain.txt");
    expect(await run("ls", { path: "d\\xE9" })).toBe("n\\xE9.md");
    expect(await run("find", { pattern: "*" })).toBe("caf\\xE9.txt\nd\\xE9/n\\xE9.md\nplain.txt");
    expect((await run("grep", { pattern: "needle" })).split("\n").sort()).toEqual([
      "caf\\xE9.txt:2: needle here",
      "d\\xE9/n\\xE9.md:1: nested needle",
      "plain.txt:1: needle too",
    ]);
  });

  it("searches inside a directory and a file whose names are not UTF-8", async () => {
    expect(await run("find", { pattern: "*.md", path: "d\\xE9" })).toBe("d\\xE9/n\\xE9.md");
    expect(await run("grep", { pattern: "needle", path: "d\\xE9" })).toBe("d\\xE9/n\\xE9.md:1: nested needle");
    expect(await run("grep", { pattern: "needle", path: "caf\\xE9.txt" })).toBe("caf\\xE9.txt:2: needle here");
    expect(await run("grep", { pattern: "nested", path: "d\\xE9/n\\xE9.md" })).toBe(
      "d\\xE9/n\\xE9.md:1: nested needle",
    );
  });

  it("read, edit and write reach the exact bytes of the name the listing showed", async () => {
    expect(await run("read", { path: "caf\\xE9.txt" })).toContain("needle here");
    expect(
      await run("edit", { path: "caf\\xE9.txt", edits: [{ oldText: "needle here", newText: "pin here" }] }),
    ).toMatch(/caf\\xE9\.txt/);
    expect(await readFile(bytesPath(latin1("caf", ".txt")), "utf8")).toBe("first line\npin here\n");
    await run("write", { path: "caf\\xE9.txt", content: "replaced\n" });
    expect(await readFile(bytesPath(latin1("caf", ".txt")), "utf8")).toBe("replaced\n");
    // No look-alike second file: the directory still holds the same names, as bytes.
    const names = (await readdir(dir, { encoding: "buffer" })).map((name) => name.toString("hex")).sort();
    expect(names).toEqual(
      [latin1("caf", ".txt"), latin1("d", ""), Buffer.from("plain.txt")].map((name) => name.toString("hex")).sort(),
    );
  });

  it("creates a new file with the bytes the escapes name", async () => {
    expect(await run("write", { path: "d\\xE9/new\\xE9.txt", content: "made\n" })).toMatch(
      /Created d\\xE9\/new\\xE9\.txt/,
    );
    expect(await readFile(bytesPath(latin1("d", "/"), latin1("new", ".txt")), "utf8")).toBe("made\n");
  });

  it("prefers a file whose literal name is the escaped spelling", async () => {
    await writeFile(nodePath.join(dir, "caf\\xE9.txt"), "literal\n");
    expect(await run("read", { path: "caf\\xE9.txt" })).toContain("literal");
  });

  it("keeps the workspace boundary for names that are not UTF-8", async () => {
    const outside = nodePath.join(root, "outside");
    await mkdir(outside);
    await writeFile(nodePath.join(outside, "secret.txt"), "secret\n");
    await symlink(outside, bytesPath(latin1("link", "")));
    await expect(run("read", { path: "link\\xE9/secret.txt" })).rejects.toThrow(/Refused by the workspace policy/);
    await expect(run("ls", { path: "link\\xE9" })).rejects.toThrow(/Refused by the workspace policy/);
    await expect(run("write", { path: "link\\xE9/planted.txt", content: "x" })).rejects.toThrow(
      /Refused by the workspace policy/,
    );
  });
});

describe("file names with control characters", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await createTempDir());
    await writeFile(nodePath.join(dir, "line\nbreak.txt"), "needle\n");
    await writeFile(nodePath.join(dir, "esc\u001b[31mred.txt"), "needle\n");
  });
  afterEach(() => cleanup());

  it("lists a newline or ESC in a name as one escaped path, never raw or split", async () => {
    const tools = createCodingTools({ cwd: dir, tools: ["ls", "find", "grep", "read"] });
    const run = async (name: string, args: Record<string, unknown>) =>
      textOf(await (tools.find((tool) => tool.name === name) as AnyAgentTool).execute(args, toolContext()));
    expect(await run("ls", {})).toBe("esc\\x1B[31mred.txt\nline\\x0Abreak.txt");
    expect(await run("find", { pattern: "*" })).toBe("esc\\x1B[31mred.txt\nline\\x0Abreak.txt");
    expect((await run("grep", { pattern: "needle" })).split("\n").sort()).toEqual([
      "esc\\x1B[31mred.txt:1: needle",
      "line\\x0Abreak.txt:1: needle",
    ]);
    expect(await run("read", { path: "line\\x0Abreak.txt" })).toContain("needle");
  });
});

import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { calcTool, evaluate } from "../examples/calc-tool.js";
import { createReadFileTool, createWriteTool, resolveInside } from "../examples/file-tools.js";

const context = { toolCallId: "t1", signal: new AbortController().signal };

describe("calc", () => {
  test("follows arithmetic precedence, parentheses and unary minus", () => {
    expect(evaluate("12*8")).toBe(96);
    expect(evaluate("1 + 2 * 3")).toBe(7);
    expect(evaluate("(1 + 2) * 3")).toBe(9);
    expect(evaluate("-2 ^ 2")).toBe(-4);
    expect(evaluate("2 ^ 3 ^ 2")).toBe(512);
    expect(evaluate("7 % 4 - .5")).toBe(2.5);
  });

  test("refuses division by zero and anything that is not arithmetic", () => {
    expect(() => evaluate("1/0")).toThrow('Division by zero in "1/0"');
    expect(() => evaluate("process.exit(1)")).toThrow("use only numbers");
    expect(() => evaluate("(1+2")).toThrow('Missing ")"');
    expect(() => evaluate("1 2")).toThrow('Unexpected "2"');
  });

  test("answers with the value as text", async () => {
    const result = await calcTool.execute({ expression: "6*7" }, context);
    expect(result.content).toEqual([{ type: "text", text: "42" }]);
  });
});

describe("file tools", () => {
  let base = "";
  let cwd = "";
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "gyre-tools-"));
    cwd = join(base, "proj");
    await mkdir(cwd);
    await mkdir(join(base, "proj-secret"));
    await writeFile(join(base, "proj-secret", "key.txt"), "secret\n");
    await symlink(join(base, "proj-secret", "key.txt"), join(cwd, "link.txt"));
    await writeFile(join(cwd, "long.txt"), Array.from({ length: 230 }, (_, i) => `line ${i + 1}`).join("\n"));
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  test("keeps paths inside the working directory, comparing with the separator", () => {
    expect(resolveInside("/proj", "a/b.txt")).toBe("/proj/a/b.txt");
    expect(resolveInside("/proj", ".")).toBe("/proj");
    expect(() => resolveInside("/proj", "../proj-secret/key.txt")).toThrow("resolves outside the working directory");
    expect(() => resolveInside("/proj", "/etc/hosts")).toThrow("resolves outside the working directory");
  });

  test("refuses a symlink that leads outside", async () => {
    const read = createReadFileTool({ cwd });
    await expect(read.execute({ path: "link.txt" }, context)).rejects.toThrow("leads outside the working directory");
  });

  test("reads 100 lines at a time with a notice naming the next offset", async () => {
    const read = createReadFileTool({ cwd });
    const first = await read.execute({ path: "long.txt" }, context);
    const text = first.content[0]?.type === "text" ? first.content[0].text : "";
    expect(text.split("\n")).toHaveLength(101);
    expect(text.endsWith("[Showing lines 1-100 of 230. Use offset=101 to continue.]")).toBe(true);
    const last = await read.execute({ path: "long.txt", offset: 201 }, context);
    expect(last.content).toEqual([
      { type: "text", text: Array.from({ length: 30 }, (_, i) => `line ${i + 201}`).join("\n") },
    ]);
  });

  test("writes inside the working directory only", async () => {
    const write = createWriteTool({ cwd });
    const result = await write.execute({ path: "out.txt", content: "héllo" }, context);
    expect(result.content).toEqual([{ type: "text", text: "Wrote 6 bytes to out.txt." }]);
    expect(await readFile(join(cwd, "out.txt"), "utf8")).toBe("héllo");
    await expect(write.execute({ path: "../escape.txt", content: "x" }, context)).rejects.toThrow("Refused");
  });
});

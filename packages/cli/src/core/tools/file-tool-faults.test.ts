import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { link, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTempDir, textOf, toolContext } from "../../../test/tools/helpers.js";
import { createEditTool } from "./edit-tool.js";
import { createFindTool } from "./find-tool.js";
import { createGrepTool } from "./grep-tool.js";
import { createReadTool } from "./read-tool.js";
import { createWriteTool } from "./write-tool.js";

let dir: string;
let ws: string;
let outside: string;
let cleanup: () => Promise<void>;
let flipper: ChildProcess | undefined;
beforeEach(async () => {
  ({ dir, cleanup } = await createTempDir());
  ws = nodePath.join(dir, "ws");
  outside = nodePath.join(dir, "outside");
  await mkdir(ws);
  await mkdir(outside);
  await writeFile(nodePath.join(outside, "secret.txt"), "TOP-SECRET-CONTENT\n");
});
afterEach(async () => {
  flipper?.kill("SIGKILL");
  flipper = undefined;
  await cleanup();
});

/** Runs a tool and returns its text, or the error message it threw. */
async function attempt(run: () => Promise<unknown>): Promise<string> {
  try {
    return textOf((await run()) as Parameters<typeof textOf>[0]);
  } catch (error) {
    return `ERROR: ${(error as Error).message}`;
  }
}

describe("links and races", () => {
  it("refuses to read a hard link in the workspace whose other name lies outside", async () => {
    await link(nodePath.join(outside, "secret.txt"), nodePath.join(ws, "innocent.txt"));
    const text = await attempt(() => createReadTool({ cwd: ws }).execute({ path: "innocent.txt" }, toolContext()));
    expect(text).toMatch(/^ERROR: .*2 hard links/);
    expect(text).not.toContain("TOP-SECRET");
    const edit = await attempt(() =>
      createEditTool({ cwd: ws }).execute(
        { path: "innocent.txt", edits: [{ oldText: "TOP", newText: "x" }] },
        toolContext(),
      ),
    );
    expect(edit).toMatch(/^ERROR: .*hard links/);
  });

  it("never returns the outside file while another process flips a folder to a symlink and back", async () => {
    await mkdir(nodePath.join(dir, "decoy"));
    await writeFile(nodePath.join(dir, "decoy", "secret.txt"), "harmless\n");
    // A real process swaps ws/real between the decoy folder and a symlink to the outside one.
    const script = `
      const fs = require("node:fs");
      const target = ${JSON.stringify(nodePath.join(ws, "real"))};
      fs.symlinkSync(${JSON.stringify(outside)}, target + ".link");
      fs.cpSync(${JSON.stringify(nodePath.join(dir, "decoy"))}, target + ".dir", { recursive: true });
      fs.cpSync(${JSON.stringify(nodePath.join(dir, "decoy"))}, target, { recursive: true });
      for (;;) {
        fs.renameSync(target, target + ".old");
        fs.renameSync(target + ".link", target);
        fs.renameSync(target, target + ".link");
        fs.renameSync(target + ".old", target);
      }`;
    flipper = spawn(process.execPath, ["-e", script], { stdio: "ignore" });
    // On a loaded machine the flipper takes a while to start: read only once it is flipping.
    const oldDir = nodePath.join(ws, "real.old");
    for (
      let waited = 0;
      !(await stat(oldDir).then(
        () => true,
        () => false,
      ));
      waited += 10
    ) {
      if (waited > 10_000) throw new Error("the flipper process never started flipping");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const tool = createReadTool({ cwd: ws });
    let leaked = 0;
    let answered = 0;
    for (let index = 0; index < 400; index++) {
      const text = await attempt(() => tool.execute({ path: "real/secret.txt" }, toolContext()));
      if (text.includes("TOP-SECRET")) leaked++;
      if (text.includes("harmless")) answered++;
    }
    expect(leaked).toBe(0);
    expect(answered).toBeGreaterThan(0);
  });
});

describe("special files", () => {
  it("grep and find on a FIFO answer at once instead of hanging", async () => {
    execFileSync("mkfifo", [nodePath.join(ws, "pipe")]);
    await writeFile(nodePath.join(ws, "a.txt"), "needle\n");
    const grep = createGrepTool({ cwd: ws });
    expect(await attempt(() => grep.execute({ pattern: "needle", path: "pipe" }, toolContext()))).toMatch(
      /^ERROR: pipe is not a regular file/,
    );
    expect(await attempt(() => grep.execute({ pattern: "needle" }, toolContext()))).toContain("a.txt");
    const find = createFindTool({ cwd: ws });
    expect(await attempt(() => find.execute({ pattern: "*", path: "pipe" }, toolContext()))).toMatch(/^ERROR:/);
  }, 10_000);

  it("write refuses to replace a FIFO and leaves it in place", async () => {
    const pipe = nodePath.join(ws, "pipe");
    execFileSync("mkfifo", [pipe]);
    const text = await attempt(() =>
      createWriteTool({ cwd: ws }).execute({ path: "pipe", content: "data" }, toolContext()),
    );
    expect(text).toMatch(/^ERROR: pipe is a FIFO, socket or device/);
    expect((await stat(pipe)).isFIFO()).toBe(true);
  });
});

describe("edits in a file with mixed line endings", () => {
  it("keeps each line's own ending", async () => {
    const path = nodePath.join(ws, "mixed.txt");
    await writeFile(path, "one\r\ntwo\r\nthree\nfour\nfive\r\n");
    const edit = createEditTool({ cwd: ws });
    await createReadTool({ cwd: ws }).execute({ path: "mixed.txt" }, toolContext());
    await edit.execute({ path: "mixed.txt", edits: [{ oldText: "four", newText: "FOUR\nFOUR-B" }] }, toolContext());
    expect(await readFile(path, "utf8")).toBe("one\r\ntwo\r\nthree\nFOUR\nFOUR-B\nfive\r\n");
  });
});

describe("paths typed with look-alike characters", () => {
  it.each([
    ["Screenshot 2026-12-01 at 10.00.00\u202fAM.png", "Screenshot 2026-12-01 at 10.00.00 AM.png"],
    ["note\u00a0one.txt", "note one.txt"],
    ["cafe\u0301.txt", "caf\u00e9.txt"],
    ["caf\u00e9.txt", "cafe\u0301.txt"],
    ["it\u2019s.txt", "it's.txt"],
    ["it's.txt", "it\u2019s.txt"],
  ])("finds %j when asked for %j", async (onDisk, typed) => {
    await writeFile(nodePath.join(ws, onDisk), "found me\n");
    const text = await attempt(() => createReadTool({ cwd: ws }).execute({ path: typed }, toolContext()));
    expect(text).toBe("found me");
  });

  it("never follows a look-alike out of the workspace", async () => {
    await writeFile(nodePath.join(outside, "it\u2019s.txt"), "outside\n");
    const text = await attempt(() =>
      createReadTool({ cwd: ws }).execute({ path: "../outside/it's.txt" }, toolContext()),
    );
    expect(text).toMatch(/^ERROR: Refused by the workspace policy/);
  });
});

describe("a deleted workspace", () => {
  it("says the workspace is gone instead of blaming bash", async () => {
    const { createBashTool } = await import("./bash-tool.js");
    const tool = createBashTool({ cwd: ws });
    await rm(ws, { recursive: true });
    const text = await attempt(() => tool.execute({ command: "echo hi" }, toolContext()));
    expect(text).toMatch(/^ERROR: The workspace .* no longer exists/);
  });

  it("read, write and find say the workspace is gone instead of file not found", async () => {
    const read = createReadTool({ cwd: ws });
    const write = createWriteTool({ cwd: ws });
    const find = createFindTool({ cwd: ws });
    await rm(ws, { recursive: true });
    for (const run of [
      () => read.execute({ path: "notes.txt" }, toolContext()),
      () => write.execute({ path: "notes.txt", content: "x" }, toolContext()),
      () => find.execute({ pattern: "*" }, toolContext()),
    ])
      expect(await attempt(run)).toMatch(/^ERROR: The workspace .* no longer exists \(deleted or moved/);
  });
});

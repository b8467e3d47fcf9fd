import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CommandBodyIo, expandCommandBody } from "../../src/core/claude-compat/command-body.js";
import { createPathPolicy } from "../../src/core/tools/path-policy.js";
import { createNodeFileSystem } from "../../src/core/tools/tool-fs.js";
import { createUserShell } from "../../src/core/user-shell.js";
import { makeTempDirs, type TempDirs } from "../sdk/temp-dirs.js";

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await makeTempDirs();
});
afterEach(async () => {
  await dirs.remove();
});

/** Gone, or a zombie nobody has reaped yet: either way it no longer runs. */
async function isRunning(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  return stat !== undefined && !/^\d+ \(.*\) Z/.test(stat);
}

function hostIo(timeoutSeconds: number, refused?: string): CommandBodyIo {
  const fs = createNodeFileSystem();
  return {
    check: async () => refused,
    shell: createUserShell({ cwd: dirs.cwd, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, timeoutSeconds }),
    policy: createPathPolicy({ cwd: dirs.cwd, fs, homeDir: dirs.home }),
    fs,
    readDenied: async () => undefined,
  };
}

describe("a Claude command's !`cmd` lines", () => {
  it("end the whole process group at the timeout, and the prompt still goes", async () => {
    const body = "Before.\n!`sleep 30 & echo $! > child.pid; wait`\nAfter.";
    const text = await expandCommandBody(body, hostIo(1), new AbortController().signal);
    expect(text).toBe("Before.\n[!`sleep 30 & echo $! > child.pid; wait` failed (timed out)]\nAfter.");
    const child = Number(await readFile(join(dirs.cwd, "child.pid"), "utf8"));
    expect(child).toBeGreaterThan(0);
    expect(await isRunning(child)).toBe(false);
  });

  it("never run what the gate refuses, and never expand a command's output or a file's text again", async () => {
    const refused = await expandCommandBody("!`touch made`", hostIo(5, "denied here"), new AbortController().signal);
    expect(refused).toBe("[!`touch made` was not run: denied here]");
    await writeFile(join(dirs.cwd, "note.md"), "NOTE TEXT\n");
    const echoed = await expandCommandBody(
      "!`printf '!\\140touch made\\140 @note.md'`",
      hostIo(5),
      new AbortController().signal,
    );
    expect(echoed).toBe("!`touch made` @note.md");
    expect(existsSync(join(dirs.cwd, "made"))).toBe(false);
  });
});

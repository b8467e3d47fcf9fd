/**
 * Background shells on the host (sandbox off): real processes started through the bash tool,
 * read with bash_output, stopped with kill_shell, ended by dispose.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import type { AnyAgentTool } from "@gyre/agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type BackgroundShells, createBackgroundShells, createCodingTools } from "../../src/core/tools/index.js";
import { createTempDir, textOf, toolContext } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
let shells: BackgroundShells;
let tools: AnyAgentTool[];

beforeEach(async () => {
  ({ dir, cleanup } = await createTempDir());
  shells = createBackgroundShells({ maxLines: 50, maxBytes: 4096, killGraceMs: 300 });
  tools = createCodingTools({ cwd: dir, tools: ["bash"], bash: { shells, tempDir: dir } });
});
afterEach(async () => {
  await shells.dispose();
  await cleanup();
});

const call = async (name: string, args: Record<string, unknown>) => {
  const tool = tools.find((each) => each.name === name) as AnyAgentTool;
  return textOf(await tool.execute(args, toolContext()));
};

/** Starts `command` in the background and returns its shell id. */
async function start(command: string): Promise<string> {
  const text = await call("bash", { command, run_in_background: true });
  const id = /Started background shell (shell-\d+)/.exec(text)?.[1];
  if (!id) throw new Error(`no shell id in: ${text}`);
  return id;
}

/** Reads until `pattern` shows up in the output gathered over several reads. */
async function readUntil(id: string, pattern: RegExp): Promise<string> {
  let seen = "";
  for (let tries = 0; tries < 200; tries++) {
    seen += `${await call("bash_output", { id })}\n`;
    if (pattern.test(seen)) return seen;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never saw ${pattern} in:\n${seen}`);
}

/** Whether `pid` is alive (a zombie counts as ended). */
async function alive(pid: number): Promise<boolean> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return status !== "" && !/^State:\s+Z/m.test(status);
}

async function waitGone(pid: number): Promise<boolean> {
  for (let tries = 0; tries < 100 && (await alive(pid)); tries++) await new Promise((r) => setTimeout(r, 20));
  return !(await alive(pid));
}

describe("background shells on the host", () => {
  it("are offered with bash, right after it", () => {
    expect(tools.map((tool) => tool.name)).toEqual(["bash", "bash_output", "kill_shell"]);
  });

  it("return at once, then report a short command's output and exit code", async () => {
    const started = performance.now();
    const id = await start("echo first; sleep 0.3; echo second; exit 3");
    expect(performance.now() - started).toBeLessThan(250);
    expect(id).toBe("shell-1");
    const info = await shells.whenEnded(id);
    expect(info).toMatchObject({ state: "exited", exitCode: 3 });
    const text = await call("bash_output", { id });
    expect(text).toContain("first\nsecond");
    expect(text).toContain("[shell-1 exited with code 3]");
    // What was read is not given again.
    expect(await call("bash_output", { id })).toBe("(no new output)\n\n[shell-1 exited with code 3]");
  });

  it("gives only what arrived since the last read, and filters lines", async () => {
    const id = await start(
      "for i in 1 2 3 4 5 6; do echo line $i; if [ $i = 3 ]; then until [ -e go ]; do sleep 0.02; done; fi; done; echo ERROR: bad",
    );
    const early = await readUntil(id, /line 3/);
    expect(early).toContain("line 1");
    await writeFile(nodePath.join(dir, "go"), "");
    await shells.whenEnded(id);
    const filtered = await call("bash_output", { id, filter: "ERROR|line [45]" });
    expect(filtered).toContain("line 4\nline 5\nERROR: bad");
    expect(filtered).not.toContain("line 6");
    expect(filtered).not.toContain("line 1");
    await expect(call("bash_output", { id, filter: "(" })).rejects.toThrow(/not a valid JavaScript regular expression/);
    await expect(call("bash_output", { id: "shell-9" })).rejects.toThrow('No background shell "shell-9"');
  });

  it("kills the whole process group with kill_shell, children included", async () => {
    const id = await start("sleep 60 & echo child $!; trap '' TERM; while :; do sleep 0.05; done");
    const child = Number(/child (\d+)/.exec(await readUntil(id, /child \d+/))?.[1]);
    expect(await alive(child)).toBe(true);
    const text = await call("kill_shell", { id });
    expect(text).toMatch(/Stopped background shell shell-1 .*killed \(SIGKILL\)/);
    expect(await waitGone(child)).toBe(true);
    expect(await call("bash_output", { id })).toContain("[shell-1 killed (SIGKILL)]");
    expect(await call("kill_shell", { id })).toContain("had already ended");
  });

  it("ends running shells on dispose and refuses new ones after", async () => {
    const id = await start("echo pid $$; exec sleep 60");
    const pid = Number(/pid (\d+)/.exec(await readUntil(id, /pid \d+/))?.[1]);
    await shells.dispose();
    expect(await waitGone(pid)).toBe(true);
    expect(shells.list()[0]).toMatchObject({ id, state: "killed" });
    await expect(start("true")).rejects.toThrow(/session is closing/);
  });

  it("spills long output to a file the result names and keeps memory bounded", async () => {
    const id = await start("seq 1 20000");
    await shells.whenEnded(id);
    const text = await call("bash_output", { id });
    const path = /only in (\S+);/.exec(text)?.[1] as string;
    expect(nodePath.dirname(path)).toBe(dir);
    expect(text).toContain("20000");
    expect(text).toMatch(/\[showing the last 50 of \d+ new lines; the full output is in /);
    const full = await readFile(path, "utf8");
    expect(full.split("\n")).toHaveLength(20001);
  });

  it("refuses a shell past the limit of running ones, and ends the process it was given", async () => {
    const limited = createBackgroundShells({ maxLines: 50, maxBytes: 4096, killGraceMs: 300, maxRunning: 1 });
    const [bash] = createCodingTools({ cwd: dir, tools: ["bash"], bash: { shells: limited, tempDir: dir } });
    try {
      await bash?.execute({ command: "sleep 60", run_in_background: true }, toolContext());
      const marker = `61.${Math.floor(Math.random() * 1e6)}`;
      await expect(
        bash?.execute({ command: `exec sleep ${marker}`, run_in_background: true }, toolContext()),
      ).rejects.toThrow("1 background shells are running already (shell-1); stop one with kill_shell first.");
      const running = async () => {
        for (const entry of await readdir("/proc")) {
          const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
          if (cmdline === `sleep\0${marker}\0` && (await alive(Number(entry)))) return true;
        }
        return false;
      };
      for (let tries = 0; tries < 100 && (await running()); tries++) await new Promise((r) => setTimeout(r, 20));
      expect(await running()).toBe(false);
    } finally {
      await limited.dispose();
    }
  });

  it("stops a shell's full-output file at its size limit and says so once", async () => {
    const capped = createBackgroundShells({ maxLines: 50, maxBytes: 4096, killGraceMs: 300, maxLogBytes: 20_000 });
    const [bash] = createCodingTools({ cwd: dir, tools: ["bash"], bash: { shells: capped, tempDir: dir } });
    try {
      await bash?.execute({ command: "seq 1 100000", run_in_background: true }, toolContext());
      await capped.whenEnded("shell-1");
      const text = await capped.read("shell-1");
      expect(text).toMatch(/stopped at 20 KB; later output is only in these reads/);
      expect(text).toContain("100000");
      const path = capped.list()[0]?.fullOutputPath as string;
      const size = (await readFile(path)).length;
      expect(size).toBeGreaterThan(4096);
      expect(size).toBe(20_000);
      expect(await capped.read("shell-1")).not.toContain("stopped at");
    } finally {
      await capped.dispose();
    }
  });
});

/**
 * Background shells inside the session's sandbox (real bubblewrap): a dev server started in the
 * background is reached by a later bash call in the same sandbox, its log read, then killed;
 * dispose ends a running one.
 */
import type { AnyAgentTool } from "@gyre/agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type BashSandbox, createBashSandbox } from "../../src/core/sandbox/bash-sandbox.js";
import { type BackgroundShells, createBackgroundShells, createCodingTools } from "../../src/core/tools/index.js";
import { textOf, toolContext } from "../tools/helpers.js";
import { createWorkspace, policyFor, type Workspace } from "./helpers.js";

let workspace: Workspace;
let sandbox: BashSandbox;
let shells: BackgroundShells;
let tools: AnyAgentTool[];

beforeEach(async () => {
  workspace = await createWorkspace("/var/tmp");
  const { mode: _mode, ...policy } = policyFor(workspace);
  sandbox = createBashSandbox({ mode: "workspace-write", policy });
  shells = createBackgroundShells({ maxLines: 200, maxBytes: 8192, killGraceMs: 500 });
  tools = createCodingTools({ cwd: workspace.cwd, tools: ["bash"], bash: { sandbox, shells } });
});
afterEach(async () => {
  await shells.dispose();
  await sandbox.dispose();
  await workspace.cleanup();
});

const call = async (name: string, args: Record<string, unknown>) => {
  const tool = tools.find((each) => each.name === name) as AnyAgentTool;
  return textOf(await tool.execute(args, toolContext()));
};

async function readUntil(id: string, pattern: RegExp): Promise<string> {
  let seen = "";
  for (let tries = 0; tries < 300; tries++) {
    seen += `${await call("bash_output", { id })}\n`;
    if (pattern.test(seen)) return seen;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never saw ${pattern} in:\n${seen}`);
}

const SERVER =
  "node -e \"require('http').createServer((q, s) => { console.log('GET ' + q.url); s.end('hello from the background') })" +
  ".listen(0, '127.0.0.1', function () { console.log('listening on ' + this.address().port) })\"";

describe("background shells in the sandbox", () => {
  it("keep a server running that a later bash call reaches; its log is read, then it is killed", async () => {
    const started = await call("bash", { command: SERVER, run_in_background: true });
    expect(started).toMatch(/^Started background shell shell-1: node -e/);
    const port = Number(/listening on (\d+)/.exec(await readUntil("shell-1", /listening on \d+/))?.[1]);
    // A separate foreground call: the same sandbox (its network namespace), so loopback reaches the server.
    expect(await call("bash", { command: `curl -s http://127.0.0.1:${port}/ping` })).toBe("hello from the background");
    expect(await readUntil("shell-1", /GET \/ping/)).toContain("[shell-1 running for");
    // Written from inside the sandbox: the workspace is writable there, the rest is not.
    const denied = await call("bash", { command: "touch /usr/x 2>&1; echo done", run_in_background: true });
    expect(denied).toContain("shell-2");
    expect(await readUntil("shell-2", /exited with code 0/)).toContain("Read-only file system");
    expect(await call("kill_shell", { id: "shell-1" })).toMatch(
      /^Stopped background shell shell-1 .*killed \(SIGTERM\)/,
    );
    expect(shells.list().map((shell) => shell.state)).toEqual(["killed", "exited"]);
    await expect(call("bash", { command: `curl -s -m 2 http://127.0.0.1:${port}/` })).rejects.toThrow(
      /exited with code 7/,
    );
  }, 30_000);

  it("report a command's exit code, and dispose ends one that still runs", async () => {
    await call("bash", { command: "echo bye; exit 42", run_in_background: true });
    expect((await shells.whenEnded("shell-1")).exitCode).toBe(42);
    await call("bash", { command: "echo pid $$; exec sleep 60", run_in_background: true });
    const pid = Number(/pid (\d+)/.exec(await readUntil("shell-2", /pid \d+/))?.[1]);
    await shells.dispose();
    expect(shells.list()[1]).toMatchObject({ state: "killed" });
    // The sandbox itself still runs: the shell is gone from its PID namespace.
    expect(await call("bash", { command: `kill -0 ${pid} 2>/dev/null && echo alive || echo gone` })).toBe("gone");
  }, 30_000);

  it("ends the process of a shell refused past the limit, inside the sandbox too", async () => {
    const limited = createBackgroundShells({ maxLines: 50, maxBytes: 4096, killGraceMs: 300, maxRunning: 1 });
    const [bash] = createCodingTools({ cwd: workspace.cwd, tools: ["bash"], bash: { sandbox, shells: limited } });
    try {
      await bash?.execute({ command: "sleep 60", run_in_background: true }, toolContext());
      await expect(
        bash?.execute({ command: "echo > started; exec sleep 61.5", run_in_background: true }, toolContext()),
      ).rejects.toThrow(/running already/);
      const count =
        "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done | grep -c '^sleep 61.5' || true";
      let left = "";
      for (let tries = 0; tries < 50; tries++) {
        left = await call("bash", { command: count });
        if (left === "0") break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(left).toBe("0");
    } finally {
      await limited.dispose();
    }
  }, 30_000);

  it("end with the sandbox when a mode switch restarts it, and say so", async () => {
    await call("bash", { command: "echo up; exec sleep 60", run_in_background: true });
    await readUntil("shell-1", /up/);
    await sandbox.setMode("read-only");
    expect(await shells.whenEnded("shell-1")).toMatchObject({ state: "killed", signal: "SIGKILL" });
    expect(await call("bash_output", { id: "shell-1" })).toContain("the sandbox stopped while this command ran");
  }, 30_000);
});

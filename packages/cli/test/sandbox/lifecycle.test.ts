/** Processes in the sandbox: teardown, timeouts, fork bombs and a supervisor that dies. */
import { execFile } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionSandbox } from "../../src/core/sandbox/session-sandbox.js";
import { cliEnv, runCli } from "../helpers/run-cli.js";
import { createWorkspace, policyFor, runIn, startSandbox, type Workspace } from "./helpers.js";

const run = promisify(execFile);

/** Host processes whose command line contains `marker`. */
async function hostProcessesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    if (cmdline.includes(marker) && state !== "Z") found.push(Number(entry));
  }
  return found;
}

let workspace: Workspace;
let sandbox: SessionSandbox;
beforeEach(async () => {
  workspace = await createWorkspace();
  sandbox = await startSandbox(policyFor(workspace, { maxProcesses: 128 }));
});
afterEach(async () => {
  await sandbox.dispose();
  await workspace.cleanup();
});

describe("the session sandbox", () => {
  it("kills background, setsid and double-forked processes at teardown (D13)", async () => {
    const marker = `gyre-marker-${process.pid}-${Date.now()}`;
    const result = await runIn(
      sandbox,
      `(exec -a ${marker}-bg sleep 300) & setsid bash -c 'exec -a ${marker}-setsid sleep 300' & ` +
        `(bash -c '(exec -a ${marker}-double sleep 300) &' &) ; sleep 0.2; echo started`,
      { cwd: workspace.cwd },
    );
    expect(result.output).toContain("started");
    expect((await hostProcessesWith(marker)).length).toBe(3);
    await sandbox.dispose();
    expect(await hostProcessesWith(marker)).toEqual([]);
  });

  it("kills the command's process group on timeout and keeps serving", async () => {
    const result = await runIn(sandbox, "sleep 30 & sleep 30; echo never", { cwd: workspace.cwd, timeoutMs: 300 });
    expect(result.timedOut).toBe(true);
    expect(result.output).not.toContain("never");
    const next = await runIn(sandbox, "echo again", { cwd: workspace.cwd });
    expect(next.output).toBe("again\n");
  });

  it("contains a fork bomb: gyre stays responsive and the sandbox serves the next call", async () => {
    const bomb = runIn(sandbox, "bomb() { bomb | bomb & }; bomb; sleep 5", { cwd: workspace.cwd, timeoutMs: 3000 });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const started = performance.now();
    const { stdout } = await run("bash", ["-c", "echo host-alive"]);
    expect(stdout).toBe("host-alive\n");
    expect(performance.now() - started).toBeLessThan(2000);
    expect((await bomb).timedOut).toBe(true);
    await sandbox.dispose();
    const next = await runIn(sandbox, "echo recovered", { cwd: workspace.cwd });
    expect(next.output).toBe("recovered\n");
  });

  it("caps the number of processes a command can start", async () => {
    // Each sleep lives 4 s, so the 128 of the cap are alive together even when a loaded machine
    // forks slowly (with 1 s, the first had ended before the 128th started, at load 6); tail ends
    // once the last one has, so none is left for the next test.
    const result = await runIn(sandbox, "for i in $(seq 300); do sleep 4 & done 2>&1 | tail -1; echo end", {
      cwd: workspace.cwd,
      timeoutMs: 20_000,
    });
    expect(result.output).toMatch(/Resource temporarily unavailable|retry: No child processes|fork/);
  }, 30_000);

  it("reports a command cut off when the sandbox dies, then starts a new sandbox", async () => {
    const result = await runIn(sandbox, "kill -9 $PPID; sleep 5", { cwd: workspace.cwd });
    expect(result.output).toContain("the sandbox stopped while this command ran");
    const next = await runIn(sandbox, "echo fresh", { cwd: workspace.cwd });
    expect(next.output).toBe("fresh\n");
  });

  it("removes the mount points it created once disposed", async () => {
    await runIn(sandbox, "true", { cwd: workspace.cwd });
    expect(await readdir(workspace.cwd)).toEqual([".git", ".gyre", ".mcp.json"]);
    await sandbox.dispose();
    expect(await readdir(workspace.cwd)).toEqual([]);
  });
});

describe("the mount points of a running sandbox", () => {
  it("give no warning about .gyre/ or .mcp.json to a gyre started meanwhile in the same folder (N6)", async () => {
    await writeFile(join(workspace.cwd, "AGENTS.md"), "Project notes.\n");
    await runIn(sandbox, "true", { cwd: workspace.cwd });
    expect(await readdir(join(workspace.cwd, ".gyre"))).toEqual([]);
    const script = join(workspace.gyreHome, "script.json");
    await writeFile(script, JSON.stringify([{ content: [{ type: "text", text: "ok" }] }]));
    const result = await runCli(["--provider", "faux", "--faux-script", script, "--verbose", "-p", "hi"], {
      cwd: workspace.cwd,
      env: cliEnv(workspace.gyreHome),
    });
    expect(result.stdout).toBe("ok\n");
    expect(result.stderr).not.toMatch(/\.gyre\/|\.mcp\.json/);
  });
});

describe("a command ended before the sandbox started", () => {
  it("never runs", async () => {
    const fresh = await createWorkspace();
    const cold = await startSandbox(policyFor(fresh));
    try {
      const controller = new AbortController();
      controller.abort();
      const result = await runIn(cold, "touch ran", { cwd: fresh.cwd, signal: controller.signal });
      expect(result.code).toBeNull();
      await runIn(cold, "true", { cwd: fresh.cwd });
      expect(await readdir(fresh.cwd)).toEqual([".git", ".gyre", ".mcp.json"]);
    } finally {
      await cold.dispose();
      await fresh.cleanup();
    }
  });
});

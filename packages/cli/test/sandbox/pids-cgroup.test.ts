/**
 * No pids cgroup outlives its sandbox (audit S25): disposed, exited without disposing, or left by
 * a gyre that died, in the real cgroup file system. Needs a place this process may create cgroups
 * in (root, or a delegated cgroup v2 subtree), as gyre itself does to bound a fork bomb.
 */
import { spawn } from "node:child_process";
import { mkdir, readdir, rmdir, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createPidsCgroup, sweepStalePidsCgroups } from "../../src/core/sandbox/pids-cgroup.js";
import { cliEnv, createWorkspace as createCliWorkspace, gyreBin } from "../helpers/run-cli.js";
import { createWorkspace, policyFor, runIn, startSandbox } from "./helpers.js";

const probe = await createPidsCgroup(8);
await probe?.remove();
const parent = probe ? dirname(probe.dir) : "";

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** The cgroups of process `pid` (the sandbox has its own cgroup namespace, so they are seen from here). */
async function cgroupsOf(pid: number | undefined): Promise<string[]> {
  return (await readdir(parent)).filter((name) => name.startsWith(`gyre-sandbox-${pid}-`));
}

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rmdir(dir).catch(() => undefined);
});

describe.skipIf(!probe)("the sandbox's pids cgroup (needs cgroup rights, e.g. root)", () => {
  it("is removed when the sandbox is disposed", async () => {
    const workspace = await createWorkspace("/var/tmp");
    const sandbox = await startSandbox(policyFor(workspace));
    const before = await cgroupsOf(process.pid);
    const result = await runIn(sandbox, "echo ran", { cwd: workspace.cwd });
    expect(result.output).toBe("ran\n");
    expect((await cgroupsOf(process.pid)).length).toBe(before.length + 1);
    await sandbox.dispose();
    expect(await cgroupsOf(process.pid)).toEqual(before);
    await workspace.cleanup();
  });

  it("is removed when gyre -p exits after a bash call", async () => {
    const { cwd, home } = await createCliWorkspace();
    const script = join(home, "script.json");
    await writeFile(
      script,
      JSON.stringify([
        { content: [{ type: "toolCall", name: "bash", arguments: { command: "echo ran" } }] },
        { content: [{ type: "text", text: "finished" }] },
      ]),
    );
    const child = spawn(process.execPath, [gyreBin, "-p", "--provider", "faux", "--faux-script", script, "go"], {
      cwd,
      env: cliEnv(home),
      stdio: "ignore",
    });
    let seen: string[] = [];
    // Watched while it runs, to know the test looks at the right place.
    const watch = setInterval(() => {
      void cgroupsOf(child.pid).then((names) => {
        if (names.length > 0) seen = names;
      });
    }, 5);
    const code = await new Promise((done) => child.once("exit", done));
    clearInterval(watch);
    expect(code).toBe(0);
    expect(seen).toHaveLength(1);
    expect(await cgroupsOf(child.pid)).toEqual([]);
  });

  it("is removed by one removal that every caller shares, done once its last member is gone", async () => {
    // The sandbox's exit listener and its dispose both remove the cgroup: dispose must wait for
    // the removal under way, not finish first and leave that one's retry timer running.
    const cgroup = await createPidsCgroup(8);
    expect(cgroup).toBeDefined();
    if (!cgroup) return;
    made.push(cgroup.dir);
    const member = spawn("sleep", ["30"]);
    await writeFile(cgroup.procsFile, String(member.pid));
    const first = cgroup.remove();
    expect(cgroup.remove()).toBe(first);
    member.kill("SIGKILL");
    await first;
    expect(await exists(cgroup.dir)).toBe(false);
  });

  it("sweeps only old, empty cgroups of gyre processes that are gone", async () => {
    const dead = spawn("true");
    await new Promise((done) => dead.once("exit", done));
    const sleeper = spawn("sleep", ["30"]);
    // A parent of the test's own: the shared one may hold another gyre's stale cgroup (one killed
    // by a test beside this one), which a sweep rightly removes and counts.
    const own = join(parent, `gyre-sweep-test-${process.pid}`);
    await mkdir(own);
    try {
      const stale = join(own, `gyre-sandbox-${dead.pid}-0`);
      const busy = join(own, `gyre-sandbox-${dead.pid}-1`);
      const live = join(own, `gyre-sandbox-${sleeper.pid}-0`);
      const foreign = join(own, `not-gyre-${dead.pid}-0`);
      for (const dir of [stale, busy, live, foreign]) {
        await mkdir(dir);
        made.push(dir);
      }
      made.push(own);
      await writeFile(join(busy, "cgroup.procs"), String(sleeper.pid));
      expect(await sweepStalePidsCgroups([own], Date.now())).toBe(0);
      expect(await exists(stale)).toBe(true);
      const removed = await sweepStalePidsCgroups([own], Date.now() + 120_000);
      expect(removed).toBe(1);
      expect(await exists(stale)).toBe(false);
      expect(await exists(busy)).toBe(true);
      expect(await exists(live)).toBe(true);
      expect(await exists(foreign)).toBe(true);
    } finally {
      sleeper.kill("SIGKILL");
      await new Promise((done) => sleeper.once("exit", done));
    }
    expect(await cgroupsOf(process.pid)).toEqual([]);
  });
});

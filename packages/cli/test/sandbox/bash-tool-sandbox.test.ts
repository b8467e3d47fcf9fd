/** The bash tool inside the sandbox: denials explained, fails closed, escalation only through a gate. */
import { mkdir, mkdtemp, readdir, rm, stat, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type BashSandbox, createBashSandbox } from "../../src/core/sandbox/bash-sandbox.js";
import type { SandboxMode } from "../../src/core/sandbox/types.js";
import { createBashTool } from "../../src/core/tools/bash-tool.js";
import { textOf, toolContext } from "../tools/helpers.js";
import { createWorkspace, policyFor, type Workspace } from "./helpers.js";

let workspace: Workspace;
let sandboxes: BashSandbox[];
beforeEach(async () => {
  workspace = await createWorkspace("/var/tmp");
  sandboxes = [];
});
afterEach(async () => {
  for (const sandbox of sandboxes) await sandbox.dispose();
  await workspace.cleanup();
});

function sandboxFor(mode: SandboxMode, hostEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH }): BashSandbox {
  const { mode: _mode, ...policy } = policyFor(workspace, { hostEnv });
  const sandbox = createBashSandbox({ mode, policy });
  sandboxes.push(sandbox);
  return sandbox;
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected the call to fail");
}

describe("the sandboxed bash tool", () => {
  it("explains a write outside the workspace and names escalate", async () => {
    const tool = createBashTool({ cwd: workspace.cwd, sandbox: sandboxFor("workspace-write") });
    const message = await failure(tool.execute({ command: `touch ${workspace.home}/.bashrc` }, toolContext()));
    expect(message).toContain("Read-only file system");
    expect(message).toContain(`[sandbox] ${workspace.home}/.bashrc is outside the writable roots (${workspace.cwd}`);
    expect(message).toContain("escalate: true");
  });

  it("explains a write to a protected path inside the workspace", async () => {
    await mkdir(join(workspace.cwd, ".git", "hooks"), { recursive: true });
    const tool = createBashTool({ cwd: workspace.cwd, sandbox: sandboxFor("workspace-write") });
    const message = await failure(tool.execute({ command: "echo x > .git/hooks/pre-commit" }, toolContext()));
    expect(message).toContain("keeps read-only even inside the workspace");
  });

  it("writes nothing in the workspace in read-only mode", async () => {
    const tool = createBashTool({ cwd: workspace.cwd, sandbox: sandboxFor("read-only") });
    const message = await failure(tool.execute({ command: "touch inside" }, toolContext()));
    expect(message).toContain("Read-only file system");
    expect(await readdir(workspace.cwd)).toEqual([]);
  });

  it("ignores a model-supplied cwd (D14)", async () => {
    const tool = createBashTool({ cwd: workspace.cwd, sandbox: sandboxFor("workspace-write") });
    const args = { command: "pwd; touch here", cwd: "/", workdir: ".." } as { command: string };
    const result = await tool.execute(args, toolContext());
    expect(textOf(result)).toBe(workspace.cwd);
    expect((await stat(join(workspace.cwd, "here"))).isFile()).toBe(true);
  });

  it("fails closed when bwrap is not on PATH, naming the cause and --sandbox off (D22)", async () => {
    const bin = await mkdtemp("/var/tmp/gyre-nobwrap-");
    try {
      for (const name of ["bash", "touch"]) await symlink(`/usr/bin/${name}`, join(bin, name));
      const tool = createBashTool({ cwd: workspace.cwd, sandbox: sandboxFor("workspace-write", { PATH: bin }) });
      const message = await failure(tool.execute({ command: "touch ran" }, toolContext()));
      expect(message).toContain(
        "the workspace-write sandbox is unavailable because bubblewrap (bwrap) is not installed",
      );
      expect(message).toContain("--sandbox off");
      expect(await readdir(workspace.cwd)).toEqual([]);
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });

  it("refuses escalate when no gate approved it, and runs on the host when one did", async () => {
    const sandbox = sandboxFor("workspace-write");
    const ungated = createBashTool({ cwd: workspace.cwd, sandbox });
    const outside = join(workspace.home, "escalated");
    const message = await failure(ungated.execute({ command: `touch ${outside}`, escalate: true }, toolContext()));
    expect(message).toContain("escalate is not available in this run");
    await expect(stat(outside)).rejects.toThrow();
    const gated = createBashTool({ cwd: workspace.cwd, sandbox, escalation: "gated" });
    await gated.execute({ command: `touch ${outside}`, escalate: true, justification: "test" }, toolContext());
    expect((await stat(outside)).isFile()).toBe(true);
  });

  it("switches to a read-only sandbox for later commands", async () => {
    const sandbox = sandboxFor("workspace-write");
    const tool = createBashTool({ cwd: workspace.cwd, sandbox });
    await tool.execute({ command: "touch before" }, toolContext());
    await sandbox.setMode("read-only");
    expect(await failure(tool.execute({ command: "touch after" }, toolContext()))).toContain("Read-only file system");
    expect(await sandbox.describe()).toBe("read-only, network off");
  });
});

/** Shared helpers for the sandbox tests: a workspace with a temp GYRE_HOME and HOME, and a runner. */
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { probeSandbox } from "../../src/core/sandbox/probe-sandbox.js";
import { createSessionSandbox, type SessionSandbox } from "../../src/core/sandbox/session-sandbox.js";
import type { SandboxPolicy } from "../../src/core/sandbox/types.js";
import { runCommand } from "../../src/core/tools/run-command.js";
import { createSafeEnv } from "../../src/core/tools/safe-env.js";

export type Workspace = { root: string; cwd: string; home: string; gyreHome: string; cleanup: () => Promise<void> };

/** A fresh tree: `root/home` (HOME), `root/home/.gyre` (GYRE_HOME), `root/home/proj` (cwd). */
export async function createWorkspace(base = tmpdir()): Promise<Workspace> {
  const root = await realpath(await mkdtemp(join(base, "gyre-sandbox-")));
  const home = join(root, "home");
  const gyreHome = join(home, ".gyre");
  const cwd = join(home, "proj");
  await mkdir(gyreHome, { recursive: true });
  await mkdir(cwd, { recursive: true });
  return { root, cwd, home, gyreHome, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** A workspace-write policy for `workspace`, with overrides. */
export function policyFor(workspace: Workspace, overrides: Partial<SandboxPolicy> = {}): SandboxPolicy {
  return {
    mode: "workspace-write",
    cwd: workspace.cwd,
    writableRoots: [],
    protectedPaths: [],
    denyRead: [],
    network: false,
    gyreHome: workspace.gyreHome,
    homeDir: workspace.home,
    hostEnv: { PATH: process.env.PATH, HOME: workspace.home },
    maxProcesses: 256,
    maxMemoryMb: 4096,
    ...overrides,
  };
}

/** Starts a sandbox for `policy` with the bwrap on PATH; throws when bwrap is unusable here. */
export async function startSandbox(policy: SandboxPolicy): Promise<SessionSandbox> {
  const availability = await probeSandbox();
  if (!availability.available) throw new Error(`bwrap is required for these tests: ${availability.cause}`);
  return createSessionSandbox({ policy, bwrapPath: availability.bwrapPath });
}

/** Runs `command` in the sandbox and returns its exit code and merged output. */
export async function runIn(
  sandbox: SessionSandbox,
  command: string,
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; signal?: AbortSignal },
): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  const outcome = await runCommand({
    launch: sandbox.launch,
    command,
    cwd: options.cwd,
    shell: "bash",
    env: options.env ?? createSafeEnv(process.env),
    signal: options.signal ?? new AbortController().signal,
    timeoutMs: options.timeoutMs ?? 15_000,
    killGraceMs: 500,
    tempDir: undefined,
    maxLines: 2000,
    maxBytes: 50_000,
    updateIntervalMs: 100,
    onOutput: undefined,
  });
  return { code: outcome.exitCode, output: outcome.output.tail, timedOut: outcome.timedOut };
}

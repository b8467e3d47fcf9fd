/**
 * A fleet job's `check` command, run the way the job's bash runs (docs/fleet.md): in the job's
 * sandbox, with bash's allowlisted environment, never with the worker's own (its provider keys).
 */
import { homedir } from "node:os";
import { createBashSandbox, createSafeEnv, runCommand, type SandboxMode } from "gyre/fleet-support";
import type { CheckOutcome } from "./run-check.js";

const CHECK_TIMEOUT_MS = 300_000;

export type SandboxedCheckOptions = {
  cwd: string;
  /** The worker's environment: only bash's allowlist of it reaches the check. */
  env: NodeJS.ProcessEnv;
  /** The worker's gyre home (read-only inside the sandbox). */
  gyreHome: string;
  mode: SandboxMode;
};

/** Runs `command` with bash in the sandbox; never throws (a sandbox that cannot start is a failed check). */
export async function runSandboxedCheck(command: string, options: SandboxedCheckOptions): Promise<CheckOutcome> {
  const sandbox = createBashSandbox({
    mode: options.mode,
    policy: {
      cwd: options.cwd,
      writableRoots: [],
      protectedPaths: [],
      denyRead: [],
      network: false,
      gyreHome: options.gyreHome,
      homeDir: options.env.HOME ?? homedir(),
      hostEnv: options.env,
      maxProcesses: 1024,
      maxMemoryMb: 8192,
    },
  });
  try {
    const prepared = await sandbox.prepare();
    if (!prepared.ok) return { code: null, output: prepared.error };
    const outcome = await runCommand({
      launch: prepared.launch,
      command,
      cwd: options.cwd,
      shell: "bash",
      env: createSafeEnv(options.env),
      signal: new AbortController().signal,
      timeoutMs: CHECK_TIMEOUT_MS,
      killGraceMs: 2000,
      tempDir: undefined,
      maxLines: 200,
      maxBytes: 2000,
      updateIntervalMs: 1000,
      onOutput: undefined,
    });
    return { code: outcome.timedOut ? null : outcome.exitCode, output: outcome.output.tail.slice(-2000).trim() };
  } catch (error) {
    return { code: null, output: `The check could not run: ${(error as Error).message}` };
  } finally {
    await sandbox.dispose();
  }
}

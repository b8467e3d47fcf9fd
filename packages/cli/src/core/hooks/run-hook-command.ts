import { spawn } from "node:child_process";
import { signalProcessGroup } from "../tools/process-group.js";
import type { HookCommand, HookInput, HookRun } from "./hook-types.js";

/** Output kept per stream; a hook printing more is cut there (its JSON would be unreadable anyway). */
const MAX_OUTPUT_CHARS = 1024 * 1024;

export type RunHookOptions = {
  /** The project folder: the hook's working directory, `CLAUDE_PROJECT_DIR` and `GYRE_PROJECT_DIR`. */
  projectDir: string;
  env: NodeJS.ProcessEnv;
  /** Aborting it kills the hook's process group, as its timeout does. */
  signal?: AbortSignal;
};

/**
 * Runs one hook as `sh -c <command>` in its own process group, outside any sandbox (it is the
 * user's own command), with `input` as JSON on stdin. At its timeout or on abort the whole group
 * is killed. Never rejects: a spawn failure, timeout or signal is reported in `failure`.
 */
export function runHookCommand(command: HookCommand, input: HookInput, options: RunHookOptions): Promise<HookRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let failure: string | undefined;
    let settled = false;
    const child = spawn("sh", ["-c", command.command], {
      cwd: options.projectDir,
      env: { ...options.env, CLAUDE_PROJECT_DIR: options.projectDir, GYRE_PROJECT_DIR: options.projectDir },
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const killGroup = (why: string) => {
      failure ??= why;
      if (child.pid !== undefined) signalProcessGroup(child.pid, "SIGKILL");
    };
    const timer = setTimeout(
      () => killGroup(`timed out after ${command.timeoutSeconds} s and was killed`),
      command.timeoutSeconds * 1000,
    );
    const onAbort = () => killGroup("was stopped because the run was aborted");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const finish = (exitCode: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({
        command,
        exitCode,
        stdout,
        stderr,
        ...(failure ? { failure } : {}),
        durationMs: Date.now() - started,
      });
    };
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      if (stdout.length < MAX_OUTPUT_CHARS) stdout += chunk.slice(0, MAX_OUTPUT_CHARS - stdout.length);
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      if (stderr.length < MAX_OUTPUT_CHARS) stderr += chunk.slice(0, MAX_OUTPUT_CHARS - stderr.length);
    });
    child.on("error", (error) => {
      failure ??= `could not be started (${error.message})`;
      finish(null);
    });
    child.on("close", (code, signal) => {
      if (signal && !failure) failure = `was killed by ${signal}`;
      finish(code);
    });
    // A hook that never reads its input closes the pipe early; that is not an error.
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

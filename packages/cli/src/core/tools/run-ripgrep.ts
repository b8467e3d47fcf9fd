/**
 * Runs ripgrep with arguments built by grep and find, streaming its stdout line by line so a
 * caller can stop it early (result limit) and an abort kills it.
 */
import { spawn } from "node:child_process";

export type RipgrepRun = {
  /** rg's exit code: 0 found, 1 nothing found, 2 error (null when we stopped it). */
  exitCode: number | null;
  /** The first few KB of stderr, for error messages. */
  stderr: string;
  /** Whether `onLine` asked to stop. */
  stopped: boolean;
};

const MAX_STDERR = 4096;

/**
 * Spawns `rgPath` with `args` in `cwd`. `onLine` receives each stdout line and returns false to
 * stop (rg is killed). Rejects when rg cannot start or `signal` aborts (rg is killed first).
 */
export function runRipgrep(options: {
  rgPath: string;
  args: string[];
  cwd: string;
  signal: AbortSignal;
  onLine: (line: string) => boolean;
}): Promise<RipgrepRun> {
  const { signal } = options;
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const child = spawn(options.rgPath, options.args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    let stopped = false;
    const onAbort = () => child.kill("SIGKILL");
    signal.addEventListener("abort", onAbort, { once: true });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (text: string) => {
      if (stderr.length < MAX_STDERR) stderr += text.slice(0, MAX_STDERR - stderr.length);
    });
    // Split on "\n" only: file content may hold lone "\r" characters.
    let pending = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text: string) => {
      if (stopped) return;
      const parts = (pending + text).split("\n");
      pending = parts.pop() ?? "";
      for (const line of parts) {
        if (options.onLine(line.endsWith("\r") ? line.slice(0, -1) : line)) continue;
        stopped = true;
        child.kill("SIGKILL");
        return;
      }
    });
    child.stdout.on("end", () => {
      if (!stopped && pending.length > 0 && !options.onLine(pending)) stopped = true;
    });
    child.once("error", (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(new Error(`Could not run ripgrep (${options.rgPath}): ${error.message}.`));
    });
    child.once("close", (code) => {
      signal.removeEventListener("abort", onAbort);
      if (signal.aborted) reject(signal.reason instanceof Error ? signal.reason : new Error("The search was aborted."));
      else resolve({ exitCode: stopped ? null : code, stderr: stderr.trim(), stopped });
    });
  });
}

/**
 * A task's check command (`gyre eval`, and a fleet job that carries one): run with bash in the
 * run's folder after the run; exit 0 is a pass. Shared by local eval runs and fleet workers.
 */
import { spawn } from "node:child_process";

/** The check's exit code (null when it could not start or was killed) and the tail of its output. */
export type CheckOutcome = { code: number | null; output: string };

const CHECK_TIMEOUT_MS = 300_000;

/** Runs `command` with bash in `cwd`; never throws (a failure to start is a failed check). */
export function runCheck(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<CheckOutcome> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-2000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setTimeout(() => child.kill("SIGKILL"), CHECK_TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, output: String(error) });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output: output.trim() });
    });
  });
}

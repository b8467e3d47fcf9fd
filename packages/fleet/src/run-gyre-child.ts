/**
 * Runs one headless gyre request as a child process (`gyre --mode json -p --session <file> …`)
 * and collects its JSON lines: the eval and replay runners use it (a fleet worker streams instead,
 * see run-job.ts). A run past `timeoutMs` is stopped with SIGTERM (the child persists and exits).
 */
import { spawn } from "node:child_process";

export type ChildRunOptions = {
  gyreBin: string;
  cwd: string;
  sessionFile: string;
  args: string[];
  prompt: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
};

export type ChildRunOutcome = {
  /** The `result` line, when the run got that far. */
  result?: Record<string, unknown>;
  events: Record<string, unknown>[];
  exitCode: number | null;
  timedOut: boolean;
  /** The last part of stderr (for a run that ended without a result). */
  stderrTail: string;
  wallMs: number;
};

/** Runs the request to its end; never throws for a failed run (the outcome says how it ended). */
export function runGyreChild(options: ChildRunOptions): Promise<ChildRunOutcome> {
  const startedAt = Date.now();
  const args = [options.gyreBin, "--mode", "json", "-p", "--session", options.sessionFile, ...options.args];
  // The prompt goes on stdin: on argv a long one fails (E2BIG) and anyone can read it in `ps`.
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: { ...options.env, GYRE_EXIT_WITH_PARENT: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.on("error", () => {}); // a child that exits early closes the pipe: its exit says why
  child.stdin.end(options.prompt);
  const events: Record<string, unknown>[] = [];
  let buffered = "";
  let stderrTail = "";
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGTERM");
  }, options.timeoutMs);
  child.stdout.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      try {
        if (line.trim() !== "") events.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a JSON line: JSON mode writes none, and one torn line must not end the collection
      }
    }
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString("utf8")).slice(-2000);
  });
  return new Promise((resolve) => {
    const finish = (exitCode: number | null) => {
      clearTimeout(timer);
      const result = events.findLast((event) => event.type === "result");
      resolve({
        ...(result ? { result } : {}),
        events,
        exitCode,
        timedOut,
        stderrTail: stderrTail.trim(),
        wallMs: Date.now() - startedAt,
      });
    };
    child.on("error", (error) => {
      stderrTail += String(error);
      finish(null);
    });
    child.on("close", finish);
  });
}

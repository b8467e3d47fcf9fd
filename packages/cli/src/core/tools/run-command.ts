/**
 * Runs one shell command in its own process group and collects its merged output. Returns when
 * the shell exits, even if a background child still holds the output pipe.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type { Readable } from "node:stream";
import { looksLikeBinaryText, summariseBinaryOutput } from "./binary-output.js";
import { type CollectedOutput, createOutputCollector } from "./output-collector.js";
import { type Termination, terminateProcessGroup } from "./process-group.js";
import { formatSize, truncateTail } from "./truncate.js";

/** What a launcher needs to start one command. */
export type LaunchRequest = { shell: string; command: string; cwd: string; env: NodeJS.ProcessEnv };

/** A started command: its output, its exit, and how to end it (its whole process group). */
export type LaunchedCommand = {
  streams: Readable[];
  /** Resolves when the shell exits; rejects when it could not be started. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves once the group is gone or given up on. */
  terminate(graceMs: number): Promise<Termination>;
  /** Called once the output has been read; frees what the launcher holds for the call. */
  release?(): void;
};

/** Starts a command somewhere: on the host (default) or inside a sandbox. */
export type Launcher = (request: LaunchRequest) => LaunchedCommand;

let setprivPath: string | null | undefined;

/**
 * The command line of a host command. Through util-linux's `setpriv --pdeathsig KILL` where it
 * exists: the shell (it execs in place, same pid) is killed if gyre dies without cleaning up (a
 * kill -9), instead of running on as an orphan. The sandbox gets this from `--die-with-parent`.
 */
function hostCommandLine(request: LaunchRequest): [string, string[]] {
  setprivPath ??= existsSync("/usr/bin/setpriv") ? "/usr/bin/setpriv" : null;
  // A shell that is not there keeps spawn's own error ("Could not start …"), not setpriv's exit 127.
  const shell = setprivPath === null ? undefined : findExecutable(request.shell, request.env.PATH);
  return shell === undefined || setprivPath === null
    ? [request.shell, ["-c", request.command]]
    : [setprivPath, ["--pdeathsig", "KILL", "--", shell, "-c", request.command]];
}

/** `name` as an absolute path: itself when it has a slash, else the first match on `path`. */
function findExecutable(name: string, path: string | undefined): string | undefined {
  if (name.includes("/")) return isAbsolute(name) && existsSync(name) ? name : undefined;
  for (const dir of (path ?? "").split(":"))
    if (dir !== "" && isAbsolute(dir) && existsSync(join(dir, name))) return join(dir, name);
  return undefined;
}

/** Runs `shell -c command` on the host in a new process group. */
export const launchOnHost: Launcher = (request) => {
  const [file, args] = hostCommandLine(request);
  const child = spawn(file, args, {
    cwd: request.cwd,
    env: request.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return {
    streams: [child.stdout, child.stderr].filter((stream): stream is Readable => stream !== null),
    exited: new Promise((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (code, signal) => resolve({ code, signal }));
    }),
    terminate: (graceMs) =>
      child.pid === undefined
        ? Promise.resolve({ signal: "SIGTERM", survivors: false })
        : terminateProcessGroup(child.pid, graceMs),
  };
};

export type RunCommandOptions = {
  /** Where the command runs. Default: on the host. */
  launch?: Launcher;
  command: string;
  cwd: string;
  shell: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  timeoutMs: number;
  killGraceMs: number;
  tempDir: string | undefined;
  maxLines: number;
  maxBytes: number;
  updateIntervalMs: number;
  /** Receives the tail of the output so far, at most once per `updateIntervalMs`. */
  onOutput: ((text: string) => void) | undefined;
};

export type CommandOutcome = {
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  durationMs: number;
  timedOut: boolean;
  aborted: boolean;
  /** Set when the tool had to end the process group. */
  termination: Termination | undefined;
  output: CollectedOutput;
};

/** After the shell exits, how long to keep reading while the pipe stays busy / at most. */
const DRAIN_IDLE_MS = 30;
const DRAIN_MAX_MS = 500;

/** Runs the command; rejects only when the shell cannot be started. */
export async function runCommand(options: RunCommandOptions): Promise<CommandOutcome> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const stop = AbortSignal.any([options.signal, timeout]);
  const launched = (options.launch ?? launchOnHost)({
    shell: options.shell,
    command: options.command,
    cwd: options.cwd,
    env: options.env,
  });
  const collector = createOutputCollector(options);
  const streams = launched.streams;
  let lastData = performance.now();
  let updateTimer: NodeJS.Timeout | undefined;
  const onData = (chunk: Buffer) => {
    lastData = performance.now();
    if (!collector.push(chunk)) {
      for (const stream of streams) stream.pause();
      collector.onDrain(() => {
        for (const stream of streams) stream.resume();
      });
    }
    if (options.onOutput !== undefined && updateTimer === undefined) {
      updateTimer = setTimeout(() => {
        updateTimer = undefined;
        options.onOutput?.(formatTail(collector.peek(), options).text);
      }, options.updateIntervalMs);
    }
  };
  for (const stream of streams) stream.on("data", onData);

  let termination: Promise<Termination> | undefined;
  const onStop = () => {
    termination ??= launched.terminate(options.killGraceMs);
  };
  const exited = launched.exited;
  stop.addEventListener("abort", onStop, { once: true });
  if (stop.aborted) onStop();
  let exit: { code: number | null; signal: NodeJS.Signals | null };
  try {
    exit = await exited;
  } catch (error) {
    stop.removeEventListener("abort", onStop);
    launched.release?.();
    if (!(await isDirectory(options.cwd))) {
      throw new Error(
        `The workspace ${options.cwd} no longer exists (deleted or moved while gyre ran), so no command can run in it. Ask the user to restore it or restart gyre elsewhere.`,
      );
    }
    throw new Error(
      `Could not start ${options.shell} in ${options.cwd}: ${(error as Error).message}. Check that bash is installed.`,
    );
  }
  stop.removeEventListener("abort", onStop);
  const ended = await termination;
  await drainAfterExit(streams, () => lastData);
  for (const stream of streams) {
    stream.off("data", onData);
    stream.destroy();
  }
  launched.release?.();
  clearTimeout(updateTimer);
  return {
    exitCode: exit.code,
    exitSignal: exit.signal,
    durationMs: Math.round(performance.now() - started),
    timedOut: timeout.aborted && !options.signal.aborted,
    aborted: options.signal.aborted,
    termination: ended,
    output: await collector.finish(),
  };
}

/** Waits for the pipes to end, or for them to go quiet (a background child may keep them open). */
function drainAfterExit(streams: Readable[], lastData: () => number): Promise<void> {
  const open = streams.filter((stream) => !stream.readableEnded && !stream.destroyed);
  if (open.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const deadline = performance.now() + DRAIN_MAX_MS;
    let remaining = open.length;
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      resolve();
    };
    for (const stream of open) {
      stream.once("end", () => {
        remaining--;
        if (remaining === 0) finish();
      });
    }
    const check = () => {
      const now = performance.now();
      // A stream paused for backpressure still has output to give: never cut it off.
      const paused = open.some((stream) => stream.isPaused());
      if (!paused && (now >= deadline || now - lastData() >= DRAIN_IDLE_MS)) finish();
      else timer = setTimeout(check, DRAIN_IDLE_MS);
    };
    timer = setTimeout(check, DRAIN_IDLE_MS);
  });
}

/** The tail of the output within the limits (whole lines; a single giant line is cut). */
export function formatTail(raw: string, limits: { maxLines: number; maxBytes: number }) {
  const cleaned = cleanOutput(raw);
  const clean = cleaned.endsWith("\n") ? cleaned.slice(0, -1) : cleaned;
  const truncation = truncateTail(clean, limits);
  if (truncation.keptLines === 0 && clean.length > 0) {
    return { ...truncation, text: clean.slice(-limits.maxBytes), keptLines: 1 };
  }
  return truncation;
}

/** The text shown to the model: output tail plus a notice when anything was cut. */
export function formatBashOutput(outcome: CommandOutcome, limits: { maxLines: number; maxBytes: number }) {
  const { output } = outcome;
  if (looksLikeBinaryText(output.tail)) {
    const where = output.fullOutputPath === undefined ? "" : `\n[full output saved to ${output.fullOutputPath}]`;
    return { text: summariseBinaryOutput(output.tail, output.totalBytes) + where, truncated: true };
  }
  const tail = formatTail(output.tail, limits);
  const truncated = output.fullOutputPath !== undefined || output.fullOutputError !== undefined || tail.truncated;
  let text = tail.text.length > 0 ? tail.text : "(no output)";
  if (truncated) {
    const where =
      output.fullOutputPath !== undefined
        ? `full output (${formatSize(output.totalBytes)}) saved to ${output.fullOutputPath}; read or grep it for more`
        : `the full output could not be saved (${output.fullOutputError ?? "unknown error"})`;
    const of = output.totalLines === undefined ? "" : ` of ${output.totalLines}`;
    text += `\n\n[showing the last ${tail.keptLines}${of} lines; ${where}]`;
  }
  return { text, truncated };
}

/** Removes ANSI escapes and carriage-return overwrites (progress bars) that only waste tokens. */
function cleanOutput(text: string): string {
  const noEscapes = text.replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g, "");
  return noEscapes
    .split("\n")
    .map((line) => {
      const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
      const lastReturn = trimmed.lastIndexOf("\r");
      return lastReturn === -1 ? trimmed : trimmed.slice(lastReturn + 1);
    })
    .join("\n")
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, "");
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

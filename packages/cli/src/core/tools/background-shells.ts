/**
 * The session's background shells (docs/tools.md, "Background shells"): commands started by
 * `bash` with `run_in_background`, each in its own process group, in the same place foreground
 * bash runs (the session's sandbox, or the host through a guard that ends the group with gyre).
 * Output is collected as foreground output is (a bounded tail in memory, the full output spilled
 * to a private file); `read` hands out what arrived since the last read. When a shell's command
 * exits, whatever it left running in its group is ended too, and `dispose` ends every shell.
 */

import { type CollectedOutput, createOutputCollector, type OutputCollector } from "./output-collector.js";
import type { Termination } from "./process-group.js";
import type { LaunchedCommand } from "./run-command.js";
import { formatTail } from "./run-command.js";
import { formatSize } from "./truncate.js";

/** `running`, `exited` (the command ended by itself, see `exitCode`), `killed` (ended by gyre or a signal). */
export type ShellState = "running" | "exited" | "killed";

/** What front ends show of one shell (`/shells`, RPC `get_state`). Plain JSON. */
export type ShellInfo = {
  id: string;
  command: string;
  state: ShellState;
  /** Set once `exited`. */
  exitCode?: number;
  /** Set once `killed`: the signal that ended it. */
  signal?: string;
  startedAt: number;
  endedAt?: number;
  /** Bytes of output so far, and the file holding all of it once it outgrew the limits. */
  outputBytes: number;
  fullOutputPath?: string;
};

export type BackgroundShellsOptions = {
  maxLines: number;
  maxBytes: number;
  /** Time between SIGTERM and SIGKILL when a shell is killed. */
  killGraceMs: number;
  /** Each shell's full-output file keeps at most this many bytes. Default 256 MiB. */
  maxLogBytes?: number;
  /** At most this many shells run at once. Default 16. */
  maxRunning?: number;
  /** The wall clock (tests). */
  now?: () => number;
};

export type StartedShell = {
  launched: LaunchedCommand;
  command: string;
  /** Where its full-output file goes (the bash tool's private folder). Default: the OS temp directory. */
  tempDir?: string;
  /** Run once the command has ended: a sentence for the model (the sandbox's git guard), or undefined. */
  afterExit?: () => Promise<string | undefined>;
};

export type BackgroundShells = {
  /** Registers a launched command; throws when too many run or the session is closing. */
  start(shell: StartedShell): ShellInfo;
  /** The output since the last read (lines matching `filter` only) and the state, for the model. */
  read(id: string, filter?: string): Promise<string>;
  /** Ends the shell's whole process group (SIGTERM, SIGKILL after the grace). */
  kill(id: string): Promise<ShellInfo>;
  list(): ShellInfo[];
  /** Resolves once shell `id` has ended (tests, front ends). */
  whenEnded(id: string): Promise<ShellInfo>;
  /** Ends every shell; later starts are refused. Idempotent. */
  dispose(): Promise<void>;
};

type Shell = {
  info: ShellInfo;
  launched: LaunchedCommand;
  collector: OutputCollector;
  /** Bytes of output the model has been given. */
  cursor: number;
  /** Set by kill: the ending of the group gyre asked for. */
  killing: Promise<Termination> | undefined;
  /** The command has exited (what it left behind may still be ending). */
  commandEnded: boolean;
  /** Resolves when the command has ended and its output is collected. */
  ended: Promise<void>;
  /** Said once, with the next read: the git guard's finding, a collection failure. */
  notes: string[];
  /** Whether a read said that the full-output file is full. */
  fullNoted: boolean;
};

/** A shell's full-output file stops here (a dev server may log for days); later output is only in the tail. */
const MAX_LOG_BYTES = 256 * 1024 * 1024;

/** After the group is gone, how long to wait for the pipes to end at most. */
const DRAIN_MAX_MS = 1000;

/** Creates an empty set of shells, numbered `shell-1`, `shell-2`, … for the session's life. */
export function createBackgroundShells(options: BackgroundShellsOptions): BackgroundShells {
  const shells = new Map<string, Shell>();
  const now = options.now ?? Date.now;
  let next = 1;
  let closing: Promise<void> | undefined;

  const find = (id: string): Shell => {
    const shell = shells.get(id.trim());
    if (shell) return shell;
    const known = [...shells.keys()];
    throw new Error(
      `No background shell "${id}"; ${known.length > 0 ? `the shells are ${known.join(", ")}` : "none was started"}.`,
    );
  };

  const kill = async (shell: Shell): Promise<void> => {
    // A command that already exited keeps its exit code; its leftovers are being ended anyway.
    if (!shell.commandEnded) shell.killing ??= shell.launched.terminate(options.killGraceMs);
    await shell.ended;
  };

  return {
    start({ launched, command, tempDir, afterExit }) {
      if (closing) throw new Error("The session is closing; no background shell can start now.");
      const max = options.maxRunning ?? 16;
      const running = [...shells.values()].filter((shell) => shell.info.state === "running");
      if (running.length >= max) {
        // Ended before it is let go: the sandbox can only end a command it still tracks.
        void launched.terminate(0).finally(() => launched.release?.());
        throw new Error(
          `${max} background shells are running already (${running.map((shell) => shell.info.id).join(", ")}); ` +
            "stop one with kill_shell first.",
        );
      }
      const id = `shell-${next++}`;
      const info: ShellInfo = { id, command, state: "running", startedAt: now(), outputBytes: 0 };
      const shell: Shell = {
        info,
        launched,
        collector: createOutputCollector({
          maxLines: options.maxLines,
          maxBytes: options.maxBytes,
          maxFileBytes: options.maxLogBytes ?? MAX_LOG_BYTES,
          ...(tempDir ? { tempDir } : {}),
        }),
        cursor: 0,
        killing: undefined,
        commandEnded: false,
        ended: Promise.resolve(),
        notes: [],
        fullNoted: false,
      };
      shell.ended = follow(shell, options, now, afterExit);
      shells.set(id, shell);
      return { ...info };
    },
    async read(id, filter) {
      const shell = find(id);
      const pattern = filter === undefined || filter === "" ? undefined : compileFilter(filter);
      return describeRead(shell, pattern, options, now());
    },
    async kill(id) {
      const shell = find(id);
      await kill(shell);
      return snapshot(shell);
    },
    list: () => [...shells.values()].map(snapshot),
    async whenEnded(id) {
      const shell = find(id);
      await shell.ended;
      return snapshot(shell);
    },
    dispose() {
      closing ??= Promise.all([...shells.values()].map((shell) => kill(shell))).then(() => undefined);
      return closing;
    },
  };
}

function snapshot(shell: Shell): ShellInfo {
  const fullOutputPath = shell.collector.fullOutputPath();
  return { ...shell.info, ...(fullOutputPath ? { fullOutputPath } : {}) };
}

/** Collects the shell's output until it ends, then ends what it left in its group and records how it ended. */
async function follow(
  shell: Shell,
  options: BackgroundShellsOptions,
  now: () => number,
  afterExit: StartedShell["afterExit"],
): Promise<void> {
  const { launched, collector } = shell;
  const streams = launched.streams;
  const open = new Set(streams);
  let drained: () => void = () => undefined;
  const allEnded = new Promise<void>((resolve) => {
    drained = resolve;
  });
  for (const stream of streams) {
    stream.on("data", (chunk: Buffer) => {
      shell.info.outputBytes += chunk.length;
      if (!collector.push(chunk)) {
        for (const each of streams) each.pause();
        collector.onDrain(() => {
          for (const each of streams) each.resume();
        });
      }
    });
    const done = () => {
      open.delete(stream);
      if (open.size === 0) drained();
    };
    stream.once("end", done);
    stream.once("close", done);
  }
  if (streams.length === 0) drained();
  let exit: { code: number | null; signal: NodeJS.Signals | null };
  try {
    exit = await launched.exited;
  } catch (error) {
    exit = { code: null, signal: null };
    shell.notes.push(`The shell could not start: ${(error as Error).message}.`);
  }
  shell.commandEnded = true;
  // The command is over: anything it started in its group goes too (a server started with `&`).
  const ending = await (shell.killing ?? launched.terminate(options.killGraceMs)).catch(() => undefined);
  await Promise.race([allEnded, new Promise((resolve) => setTimeout(resolve, DRAIN_MAX_MS).unref())]);
  for (const stream of streams) stream.destroy();
  launched.release?.();
  const collected: CollectedOutput = await collector.finish();
  if (collected.fullOutputError !== undefined)
    shell.notes.push(`The full output could not be saved: ${collected.fullOutputError}.`);
  const hint = await afterExit?.().catch(() => undefined);
  if (hint !== undefined) shell.notes.push(hint);
  shell.info.endedAt = now();
  if (exit.code !== null && !shell.killing) {
    shell.info.state = "exited";
    shell.info.exitCode = exit.code;
  } else {
    shell.info.state = "killed";
    shell.info.signal = (shell.killing ? ending?.signal : undefined) ?? exit.signal ?? "SIGTERM";
  }
}

function compileFilter(filter: string): RegExp {
  try {
    return new RegExp(filter);
  } catch (error) {
    throw new Error(`filter is not a valid JavaScript regular expression: ${(error as Error).message}.`);
  }
}

/** The model's view of one read: new output (filtered, tail-capped), then the state line. */
function describeRead(
  shell: Shell,
  pattern: RegExp | undefined,
  limits: { maxLines: number; maxBytes: number; maxLogBytes?: number },
  at: number,
): string {
  const running = shell.info.state === "running";
  const piece = shell.collector.readFrom(shell.cursor);
  let text = piece.text;
  let consumed = piece.totalBytes;
  // While it runs, a line still being written waits for the next read (a filter sees whole lines).
  const lastNewline = text.lastIndexOf("\n");
  if (running && lastNewline !== -1 && lastNewline < text.length - 1) {
    consumed -= Buffer.byteLength(text.slice(lastNewline + 1));
    text = text.slice(0, lastNewline + 1);
  }
  shell.cursor = consumed;
  let lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  if (text === "") lines = [];
  const kept = pattern ? lines.filter((line) => pattern.test(line)) : lines;
  const parts: string[] = [];
  const fullOutputPath = shell.collector.fullOutputPath();
  if (piece.skippedBytes > 0) {
    parts.push(
      `[${formatSize(piece.skippedBytes)} of output since the last read are only in ${fullOutputPath ?? "the full-output file"}; read or grep it for them]`,
    );
  }
  if (kept.length === 0) {
    parts.push(pattern && lines.length > 0 ? `(no new lines match ${String(pattern)})` : "(no new output)");
  } else {
    const tail = formatTail(kept.join("\n"), limits);
    parts.push(tail.text);
    if (tail.truncated) {
      const where = fullOutputPath ? `; the full output is in ${fullOutputPath}` : "";
      parts.push(`[showing the last ${tail.keptLines} of ${kept.length} new lines${where}]`);
    }
  }
  if (shell.collector.fileFull() && !shell.fullNoted) {
    shell.fullNoted = true;
    const size = formatSize(limits.maxLogBytes ?? MAX_LOG_BYTES);
    parts.push(`[${fullOutputPath ?? "the full-output file"} stopped at ${size}; later output is only in these reads]`);
  }
  parts.push(...shell.notes.splice(0));
  parts.push(`[${shell.info.id} ${describeState(shell.info, at)}]`);
  return parts.join("\n\n");
}

/** "running for 12 s", "exited with code 0", "killed (SIGTERM)". */
export function describeState(info: ShellInfo, at: number): string {
  switch (info.state) {
    case "running":
      return `running for ${formatDuration(at - info.startedAt)}`;
    case "exited":
      return `exited with code ${info.exitCode ?? "?"}`;
    case "killed":
      return `killed (${info.signal ?? "SIGTERM"})`;
    default: {
      const never: never = info.state;
      throw new Error(`Unknown shell state ${String(never)}`);
    }
  }
}

/** "850 ms", "12 s", "3 min 4 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
}

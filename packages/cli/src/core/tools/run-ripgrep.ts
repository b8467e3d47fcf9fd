/**
 * Runs ripgrep with arguments built by grep and find, streaming its stdout line by line so a
 * caller can stop it early (result limit) and an abort kills it.
 */
import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import type { Readable } from "node:stream";
import { decodeFileName, encodeFileName, hasRawBytes } from "./file-names.js";

export type RipgrepRun = {
  /** rg's exit code: 0 found, 1 nothing found, 2 error (null when we stopped it). */
  exitCode: number | null;
  /** The first few KB of stderr, for error messages. */
  stderr: string;
  /** Whether `onLine` asked to stop. */
  stopped: boolean;
};

const MAX_STDERR = 4096;

/** The path rg sees for `RipgrepOptions.inheritFile`: the file handed to it as fd 3. */
export const INHERITED_FILE_ARGUMENT = "/dev/fd/3";

export type RipgrepOptions = {
  rgPath: string;
  args: string[];
  /** Where rg runs, in the tools' path form (may hold non-UTF-8 bytes). */
  cwd: string;
  /**
   * A file (tools' path form) opened here and given to rg as fd 3, to search by the argument
   * `INHERITED_FILE_ARGUMENT`: a name that is not UTF-8 cannot go on a command line.
   */
  inheritFile?: string;
  signal: AbortSignal;
  /** "nul" for output of `--files --null`: records end at NUL, so a name may hold a newline. Default "newline". */
  records?: "newline" | "nul";
  /** Each stdout record, decoded with `decodeFileName` so non-UTF-8 path bytes survive. */
  onLine: (line: string) => boolean;
};

/**
 * Spawns `rgPath` with `args` in `cwd`. `onLine` receives each stdout line and returns false to
 * stop (rg is killed). Rejects when rg cannot start or `signal` aborts (rg is killed first).
 */
export async function runRipgrep(options: RipgrepOptions): Promise<RipgrepRun> {
  options.signal.throwIfAborted();
  const handles: FileHandle[] = [];
  try {
    // A cwd that is not UTF-8 cannot be passed as a string: the child changes into the directory
    // through an fd this process holds (fds are still open when it does, before exec).
    let cwd = options.cwd;
    if (hasRawBytes(cwd)) {
      const directory = await open(encodeFileName(cwd), constants.O_RDONLY | constants.O_DIRECTORY);
      handles.push(directory);
      cwd = `/proc/self/fd/${directory.fd}`;
    }
    const extra: number[] = [];
    if (options.inheritFile !== undefined) {
      const file = await open(encodeFileName(options.inheritFile), constants.O_RDONLY | constants.O_NONBLOCK);
      handles.push(file);
      extra.push(file.fd);
    }
    return await spawnRipgrep(options, cwd, extra);
  } finally {
    for (const handle of handles) await handle.close();
  }
}

function spawnRipgrep(options: RipgrepOptions, cwd: string, extra: number[]): Promise<RipgrepRun> {
  const { signal } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(options.rgPath, options.args, { cwd, stdio: ["ignore", "pipe", "pipe", ...extra] });
    // Piped above, so both exist; the extra fds only loosen the inferred type.
    const stdout = child.stdout as Readable;
    const stderrStream = child.stderr as Readable;
    let stderr = "";
    let stopped = false;
    const onAbort = () => child.kill("SIGKILL");
    signal.addEventListener("abort", onAbort, { once: true });
    stderrStream.setEncoding("utf8");
    stderrStream.on("data", (text: string) => {
      if (stderr.length < MAX_STDERR) stderr += text.slice(0, MAX_STDERR - stderr.length);
    });
    // Split on "\n" only (file content may hold lone "\r" characters), in bytes: a path is
    // decoded whole, so its non-UTF-8 bytes are kept exactly.
    let pending: Buffer = Buffer.alloc(0);
    const separator = options.records === "nul" ? 0 : 10;
    stdout.on("data", (chunk: Buffer) => {
      if (stopped) return;
      let data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      for (let end = data.indexOf(separator); end !== -1; end = data.indexOf(separator)) {
        const line = decodeFileName(data.subarray(0, end));
        data = data.subarray(end + 1);
        if (options.onLine(separator === 10 && line.endsWith("\r") ? line.slice(0, -1) : line)) continue;
        stopped = true;
        child.kill("SIGKILL");
        return;
      }
      pending = Buffer.from(data);
    });
    stdout.on("end", () => {
      if (!stopped && pending.length > 0 && !options.onLine(decodeFileName(pending))) stopped = true;
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

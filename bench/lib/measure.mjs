// Spawning a command and measuring it from the outside: wall time from spawn to exit, stdout size,
// and peak RSS. Node cannot report a child's rusage, so peak RSS comes from GNU time's %M (the
// maxrss that wait4 returns) when /usr/bin/time exists; without it the memory column stays empty.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const GNU_TIME = "/usr/bin/time";
export const canMeasureRss = existsSync(GNU_TIME);

/** Milliseconds since the epoch with sub-millisecond precision: comparable across processes. */
export const now = () => performance.timeOrigin + performance.now();

/**
 * Runs `command args` and resolves (never rejects) to
 * `{ code, startedAt, wallMs, rssMb?, stdoutBytes, stdoutLines, stdout?, stderr }`.
 * `onStdout(chunk, at)` sees each stdout chunk with its arrival time; `keepStdout` keeps the text.
 * `startedAt` is taken just before spawn, so time-to-X includes process creation, as a user sees it.
 */
export function measureCommand(command, args, options = {}) {
  const { cwd, env, onStdout, keepStdout = false, input } = options;
  const rssDir = canMeasureRss ? mkdtempSync(join(tmpdir(), "gyre-bench-rss-")) : undefined;
  const rssFile = rssDir && join(rssDir, "rss");
  const file = rssFile ? GNU_TIME : command;
  const fileArgs = rssFile ? ["-f", "%M", "-o", rssFile, command, ...args] : args;
  return new Promise((resolve) => {
    const startedAt = now();
    const child = spawn(file, fileArgs, { cwd, env, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    let stdoutBytes = 0;
    let stdoutLines = 0;
    const kept = [];
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      const at = now();
      stdoutBytes += chunk.length;
      for (const byte of chunk) if (byte === 10) stdoutLines++;
      if (keepStdout) kept.push(chunk);
      onStdout?.(chunk, at);
    });
    child.stderr.on("data", (chunk) => {
      if (stderr.length < 8192) stderr += chunk.toString("utf8");
    });
    if (input !== undefined) child.stdin.end(input);
    const finish = (code) => {
      const wallMs = now() - startedAt;
      let rssMb;
      if (rssFile && existsSync(rssFile)) {
        const kilobytes = Number(readFileSync(rssFile, "utf8").trim().split("\n").pop());
        if (Number.isFinite(kilobytes) && kilobytes > 0) rssMb = kilobytes / 1024;
      }
      if (rssDir) rmSync(rssDir, { recursive: true, force: true });
      const stdout = keepStdout ? Buffer.concat(kept).toString("utf8") : undefined;
      resolve({ code, startedAt, wallMs, rssMb, stdoutBytes, stdoutLines, stdout, stderr });
    };
    child.once("error", (error) => {
      stderr += String(error.message);
      finish(-1);
    });
    child.once("close", (code) => finish(code ?? -1));
  });
}

/**
 * Runs `trials` (an object of name → async () => sample) interleaved for `rounds` rounds after
 * `warmup` untimed rounds, so drift on a shared machine hits every side alike. Odd rounds run in
 * reverse order (A B, B A, A B…) so no side always follows the heaviest one.
 * Resolves to name → samples[].
 */
export async function interleave(trials, { rounds, warmup = 1 }) {
  const names = Object.keys(trials);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = -warmup; round < rounds; round++) {
    const order = (round + warmup) % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const sample = await trials[name]();
      if (round >= 0) samples[name].push(sample);
    }
  }
  return samples;
}

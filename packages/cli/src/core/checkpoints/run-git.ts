/**
 * Runs the real `git` binary against a shadow repository only. Every call is isolated from the
 * user's git: its own GIT_DIR, work tree and index, no system or global config, no hooks, no
 * fsmonitor, no inherited GIT_* variables (a parent `git rebase -x gyre …` sets GIT_DIR).
 */
import { spawn } from "node:child_process";

/** Where one shadow repository lives and which directory it snapshots. */
export type GitLocation = { gitDir: string; workTree: string; indexFile: string; gitBinary?: string };

export type RunGitOptions = {
  /** Written to stdin, then stdin is closed. */
  input?: string | Buffer;
  /** Exit codes that are not failures (e.g. 1 for `diff --quiet`). */
  okCodes?: readonly number[];
};

export type GitResult = { code: number; stdout: Buffer; stderr: string };

/** A git call that failed; `stderr` is git's own explanation. */
export class GitFailure extends Error {
  constructor(
    readonly args: readonly string[],
    readonly code: number,
    readonly stderr: string,
  ) {
    super(`git ${args[0] ?? ""} failed (exit ${code}): ${stderr.trim().split("\n")[0] ?? ""}`);
  }
}

/** Settings forced on every call; `-c` beats any config file the shadow repository might hold. */
const FORCED_CONFIG = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.symlinks=true",
  "core.filemode=true",
  "core.quotePath=false",
  // No untracked cache: `ls-files` never uses it (only `status` does), so keeping it is pure cost.
  "core.untrackedCache=false",
  // Prefix-compressed paths: a 10k-file index is ~25% smaller to read and write on every snapshot.
  "index.version=4",
  // A snapshot rewrites the index twice (update, write-tree); split, each write is the small
  // changed part rather than all 10k entries. Shared indexes no longer linked go after a day.
  "core.splitIndex=true",
  "splitIndex.sharedIndexExpire=1.day.ago",
  "core.attributesFile=/dev/null",
  "core.excludesFile=/dev/null",
  "gc.auto=0",
  "gc.packRefs=false",
  "maintenance.auto=false",
  "commit.gpgSign=false",
];

/** The environment of a shadow git call: nothing of the user's git set-up leaks in. */
export function createGitEnv(location: GitLocation): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("GIT_")) env[name] = value;
  return {
    ...env,
    GIT_DIR: location.gitDir,
    GIT_WORK_TREE: location.workTree,
    GIT_INDEX_FILE: location.indexFile,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_AUTHOR_NAME: "gyre",
    GIT_AUTHOR_EMAIL: "gyre@localhost",
    GIT_COMMITTER_NAME: "gyre",
    GIT_COMMITTER_EMAIL: "gyre@localhost",
    LC_ALL: "C",
  };
}

/** Runs `git <args>` in the shadow repository. Rejects with `GitFailure` on a failing exit code. */
export function runGit(
  location: GitLocation,
  args: readonly string[],
  options: RunGitOptions = {},
): Promise<GitResult> {
  const argv = [...FORCED_CONFIG.flatMap((setting) => ["-c", setting]), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(location.gitBinary ?? "git", argv, {
      cwd: location.workTree,
      env: createGitEnv(location),
      stdio: ["pipe", "pipe", "pipe"],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", reject);
    // A git that exits before reading all of stdin must not crash gyre with EPIPE.
    child.stdin.on("error", () => {});
    child.on("close", (code) => {
      const result = {
        code: code ?? -1,
        stdout: Buffer.concat(stdout),
        stderr: Buffer.concat(stderr).toString("utf8"),
      };
      if (result.code === 0 || options.okCodes?.includes(result.code)) resolve(result);
      else reject(new GitFailure(args, result.code, result.stderr));
    });
    child.stdin.end(options.input ?? "");
  });
}

/** Splits NUL-separated git output into its records (the trailing empty one dropped). */
export function splitNul(output: Buffer): string[] {
  const text = output.toString("utf8");
  if (text === "") return [];
  const parts = text.split("\0");
  if (parts[parts.length - 1] === "") parts.pop();
  return parts;
}

/** Whether a `git` binary can be run; the reason when it cannot. */
export function probeGit(gitBinary = "git"): Promise<{ ok: true; version: string } | { ok: false; reason: string }> {
  return new Promise((resolve) => {
    const child = spawn(gitBinary, ["--version"], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
    });
    child.on("error", (error) => resolve({ ok: false, reason: `git cannot be run (${error.message})` }));
    child.on("close", (code) =>
      resolve(code === 0 ? { ok: true, version: out.trim() } : { ok: false, reason: `git --version exited ${code}` }),
    );
  });
}

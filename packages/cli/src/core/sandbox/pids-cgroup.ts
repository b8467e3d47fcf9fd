/**
 * A pids cgroup for one sandbox, where this process may create one (root, or a delegated cgroup
 * v2 subtree). RLIMIT_NPROC does not bind uid 0, so under root the cgroup is what stops a fork
 * bomb; elsewhere `ulimit -u` inside the sandbox does, and this returns undefined.
 *
 * Each cgroup is named `gyre-sandbox-<pid>-<n>` and removed when its sandbox ends (also when gyre
 * exits without disposing it). The first sandbox of a process sweeps the empty ones that gyre
 * processes which are gone left behind (a kill -9, a crash).
 */
import { rmdirSync } from "node:fs";
import { mkdir, readdir, readFile, rmdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";

export type PidsCgroup = {
  /** The cgroup's folder. */
  dir: string;
  /** The `cgroup.procs` file a process writes its pid to, to join. */
  procsFile: string;
  /**
   * Removes the cgroup once empty, retrying while its last processes exit; never throws. Every
   * call shares one removal: the sandbox's exit listener and its dispose both call it, and
   * dispose's must not resolve while the other's retry is still pending.
   */
  remove(): Promise<void>;
  /** The same at process exit, where nothing can be awaited: retries for up to `waitMs`, blocking. */
  removeSync(waitMs: number): void;
};

const PREFIX = "gyre-sandbox-";
/** A stale cgroup is at least this old, so one another gyre is just setting up is never taken. */
const STALE_AFTER_MS = 60_000;

let counter = 0;
let swept: Promise<void> | undefined;

async function candidateParents(): Promise<string[]> {
  const parents = ["/sys/fs/cgroup/pids"];
  const own = await readFile("/proc/self/cgroup", "utf8").catch(() => "");
  const unified = own.split("\n").find((line) => line.startsWith("0::"));
  if (unified) parents.push(join("/sys/fs/cgroup", unified.slice(3)), join("/sys/fs/cgroup/unified", unified.slice(3)));
  return parents;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes `gyre-sandbox-<pid>-<n>` folders under `parents` whose process is gone and which are
 * older than a minute. rmdir removes only an empty cgroup (no process, no child), so one still in
 * use, by this machine's gyre or another's, is never touched. Returns how many were removed.
 */
export async function sweepStalePidsCgroups(parents?: readonly string[], now = Date.now()): Promise<number> {
  let removed = 0;
  for (const parent of parents ?? (await candidateParents())) {
    const names = await readdir(parent).catch(() => [] as string[]);
    for (const name of names) {
      const match = /^gyre-sandbox-(\d+)-\d+$/.exec(name);
      if (!match || Number(match[1]) === process.pid || isAlive(Number(match[1]))) continue;
      const dir = join(parent, name);
      const info = await stat(dir).catch(() => undefined);
      if (!info || now - info.mtimeMs < STALE_AFTER_MS) continue;
      if (
        await rmdir(dir).then(
          () => true,
          () => false,
        )
      )
        removed++;
    }
  }
  return removed;
}

/** Creates a cgroup limited to `maxProcesses` tasks, or undefined when none can be made here. */
export async function createPidsCgroup(maxProcesses: number): Promise<PidsCgroup | undefined> {
  swept ??= sweepStalePidsCgroups().then(
    () => undefined,
    () => undefined,
  );
  await swept;
  for (const parent of await candidateParents()) {
    const dir = join(parent, `${PREFIX}${process.pid}-${counter++}`);
    try {
      await mkdir(dir);
    } catch {
      continue;
    }
    try {
      await writeFile(join(dir, "pids.max"), String(maxProcesses));
      let removal: Promise<void> | undefined;
      return {
        dir,
        procsFile: join(dir, "cgroup.procs"),
        remove: () => {
          removal ??= removeWhenEmpty(dir);
          return removal;
        },
        removeSync: (waitMs) => {
          const pause = new Int32Array(new SharedArrayBuffer(4));
          for (let waited = 0; waited <= waitMs; waited += 5) {
            try {
              rmdirSync(dir);
              return;
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
            }
            // Still busy (the killed processes are exiting): wait 5 ms; past waitMs the next sweep takes it.
            Atomics.wait(pause, 0, 0, 5);
          }
        },
      };
    } catch {
      await rmdir(dir).catch(() => undefined);
    }
  }
  return undefined;
}

/** rmdir of a cgroup: the kernel refuses while a member lingers, so retry for up to 2 s after the namespace died. */
async function removeWhenEmpty(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 80; attempt++) {
    const done = await rmdir(dir).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code === "ENOENT",
    );
    if (done) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

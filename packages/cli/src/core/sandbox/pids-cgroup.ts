/**
 * A pids cgroup for one sandbox, where this process may create one (root, or a delegated cgroup
 * v2 subtree). RLIMIT_NPROC does not bind uid 0, so under root the cgroup is what stops a fork
 * bomb; elsewhere `ulimit -u` inside the sandbox does, and this returns undefined.
 */
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

export type PidsCgroup = {
  /** The `cgroup.procs` file a process writes its pid to, to join. */
  procsFile: string;
  /** Removes the cgroup once empty; never throws. */
  remove(): Promise<void>;
};

let counter = 0;

async function candidateParents(): Promise<string[]> {
  const parents = ["/sys/fs/cgroup/pids"];
  const own = await readFile("/proc/self/cgroup", "utf8").catch(() => "");
  const unified = own.split("\n").find((line) => line.startsWith("0::"));
  if (unified) parents.push(join("/sys/fs/cgroup", unified.slice(3)), join("/sys/fs/cgroup/unified", unified.slice(3)));
  return parents;
}

/** Creates a cgroup limited to `maxProcesses` tasks, or undefined when none can be made here. */
export async function createPidsCgroup(maxProcesses: number): Promise<PidsCgroup | undefined> {
  for (const parent of await candidateParents()) {
    const dir = join(parent, `gyre-sandbox-${process.pid}-${counter++}`);
    try {
      await mkdir(dir);
    } catch {
      continue;
    }
    try {
      await writeFile(join(dir, "pids.max"), String(maxProcesses));
      return {
        procsFile: join(dir, "cgroup.procs"),
        remove: async () => {
          // The kernel refuses while a member lingers; retry briefly after the namespace died.
          for (let attempt = 0; attempt < 20; attempt++) {
            if (
              await rmdir(dir).then(
                () => true,
                () => false,
              )
            )
              return;
            await new Promise((done) => setTimeout(done, 25));
          }
        },
      };
    } catch {
      await rmdir(dir).catch(() => undefined);
    }
  }
  return undefined;
}

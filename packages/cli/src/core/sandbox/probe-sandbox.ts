/**
 * Finds out once per process whether bubblewrap can confine commands here, and when not, why and
 * what to do about it, in words for the user.
 */
import { execFile } from "node:child_process";
import { access, constants } from "node:fs/promises";
import { delimiter, join } from "node:path";
import type { SandboxAvailability } from "./types.js";

/** The namespaces every sandbox uses; the probe starts bwrap the same way. */
export const BASE_BWRAP_FLAGS = [
  "--die-with-parent",
  "--new-session",
  "--unshare-user-try",
  "--unshare-pid",
  "--unshare-ipc",
  "--unshare-uts",
  "--unshare-cgroup-try",
  "--unshare-net",
  "--cap-drop",
  "ALL",
];

const cache = new Map<string, Promise<SandboxAvailability>>();

/** The first executable `name` on `pathVariable`, or undefined. */
export async function findExecutable(name: string, pathVariable: string | undefined): Promise<string | undefined> {
  for (const dir of (pathVariable ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

/**
 * Whether bwrap is on `PATH` and can create the namespaces a sandbox needs. Cached per PATH for
 * the life of the process (a probe costs one bwrap start, ~65 ms). Never throws.
 */
export function probeSandbox(env: NodeJS.ProcessEnv = process.env): Promise<SandboxAvailability> {
  const key = env.PATH ?? "";
  let probe = cache.get(key);
  if (!probe) {
    probe = runProbe(env.PATH);
    cache.set(key, probe);
  }
  return probe;
}

async function runProbe(pathVariable: string | undefined): Promise<SandboxAvailability> {
  if (process.platform !== "linux") {
    return {
      available: false,
      cause: `the OS sandbox needs Linux with bubblewrap, and this is ${process.platform}`,
      fix: "run gyre with --sandbox off to run bash commands unconfined",
    };
  }
  const bwrapPath = await findExecutable("bwrap", pathVariable);
  if (!bwrapPath) {
    return {
      available: false,
      cause: "bubblewrap (bwrap) is not installed or not on PATH",
      fix: "install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or run gyre with --sandbox off to run bash commands unconfined",
    };
  }
  const args = [...BASE_BWRAP_FLAGS, "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", "true"];
  const failure = await new Promise<string | undefined>((resolve) => {
    execFile(bwrapPath, args, { timeout: 10_000, env: { PATH: pathVariable ?? "" } }, (error, _stdout, stderr) =>
      resolve(error ? stderr.trim() || error.message : undefined),
    );
  });
  if (failure === undefined) return { available: true, bwrapPath };
  return { available: false, ...explainProbeFailure(failure) };
}

/** Turns bwrap's start-up error into a cause and a fix the user can act on. */
export function explainProbeFailure(stderr: string): { cause: string; fix: string } {
  const off = "or run gyre with --sandbox off to run bash commands unconfined";
  if (/namespace|uid map|setting up uid|Operation not permitted|Permission denied/i.test(stderr)) {
    return {
      cause: `bwrap cannot create user namespaces here (${stderr})`,
      fix:
        "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ " +
        "sysctl kernel.apparmor_restrict_unprivileged_userns=0; in Docker run with --security-opt seccomp=unconfined " +
        `or a profile that permits clone/unshare), ${off}`,
    };
  }
  return { cause: `bwrap failed to start (${stderr})`, fix: `check the bubblewrap installation, ${off}` };
}

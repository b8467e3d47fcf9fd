/**
 * What a worker lets its jobs do (docs/fleet.md, "What a job can and cannot do"): a job may only
 * narrow the worker's policy. Anyone who can write to the queue can submit a job, so a job works
 * only in the folders the worker was started with (`--allow-root`), and the payload fields that
 * would run commands on the worker or lift the sandbox (`sandbox: "off"`, `mcpConfig`,
 * `fauxScript`) are refused unless the worker was started with the flag allowing each.
 */
import { realpath } from "node:fs/promises";
import * as nodePath from "node:path";
import type { JobPayload } from "./job-payload.js";

export type WorkerPolicy = {
  /** Canonical folders a `cwd` job may work in (or under); none refuses every `cwd` job. */
  allowRoots: readonly string[];
  /** `--allow-sandbox-off`: a job may run with `sandbox: "off"`. */
  allowSandboxOff: boolean;
  /** `--allow-mcp-config`: a job may name an MCP config file (its servers start on the worker). */
  allowMcpConfig: boolean;
  /** `--allow-faux-script`: a job may name a faux provider script (tests and demos). */
  allowFauxScript: boolean;
};

/** Folders no job may work in, nor be a root: the system's own, and everything under them. */
const SYSTEM_TREES = [
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/proc",
  "/run",
  "/sbin",
  "/sys",
  "/usr",
];
/** Folders that hold far more than one project: refused themselves, while their subfolders are fine. */
const TOO_WIDE = ["/", "/home", "/root", "/var", "/opt", "/srv", "/mnt", "/media", "/tmp", "/var/tmp"];

function isWithin(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(nodePath.sep) ? root : root + nodePath.sep);
}

async function canonical(path: string): Promise<string> {
  return realpath(path).catch(() => nodePath.resolve(path));
}

/** Why `path` can be neither a root nor a job's folder, or undefined when it can. */
export async function unsafeFolderReason(path: string, homeDir: string | undefined): Promise<string | undefined> {
  const real = await canonical(path);
  const home = homeDir ? await canonical(homeDir) : undefined;
  if (SYSTEM_TREES.some((tree) => isWithin(tree, real))) return `${real} is a system folder`;
  if (TOO_WIDE.includes(real)) return `${real} holds far more than one project`;
  if (home !== undefined && real === home) return `${real} is the worker's home folder`;
  return undefined;
}

/**
 * Checks the worker's `--allow-root` folders at start-up: canonical, existing, none unsafe.
 * Throws an Error whose message is one sentence for the user.
 */
export async function resolveAllowRoots(roots: readonly string[], homeDir: string | undefined): Promise<string[]> {
  const resolved: string[] = [];
  for (const root of roots) {
    const real = await realpath(root).catch(() => undefined);
    if (real === undefined) throw new Error(`--allow-root ${root} does not exist; create it or name another folder.`);
    const unsafe = await unsafeFolderReason(real, homeDir);
    if (unsafe) throw new Error(`--allow-root ${root} is refused: ${unsafe}; name the projects' own folder instead.`);
    resolved.push(real);
  }
  return resolved;
}

/**
 * Why the worker refuses `payload` (one sentence naming what would be allowed), or undefined when
 * it may run. The job's folder is compared canonically, so a symlink into a root does not help.
 */
export async function refuseJob(
  payload: JobPayload,
  policy: WorkerPolicy,
  homeDir: string | undefined,
): Promise<string | undefined> {
  if (payload.sandbox === "off" && !policy.allowSandboxOff)
    return 'The job asks for sandbox "off", which this worker refuses (start it with --allow-sandbox-off to allow it).';
  if (payload.mcpConfig !== undefined && !policy.allowMcpConfig)
    return "The job names an mcpConfig, which would start commands on the worker; this worker refuses it (start it with --allow-mcp-config to allow it).";
  if (payload.fauxScript !== undefined && !policy.allowFauxScript)
    return "The job names a fauxScript; this worker refuses it (start it with --allow-faux-script to allow it).";
  for (const key of ["cwd", "folder"] as const) {
    const path = payload[key];
    if (path === undefined) continue;
    const unsafe = await unsafeFolderReason(path, homeDir);
    if (unsafe) return `The job's ${key} is refused: ${unsafe}.`;
  }
  if (payload.cwd === undefined) return undefined;
  const where = await canonical(payload.cwd);
  if (policy.allowRoots.length === 0)
    return `The job's cwd ${where} is refused: this worker takes no cwd jobs (start it with --allow-root DIR to allow folders under DIR).`;
  if (!policy.allowRoots.some((root) => isWithin(root, where)))
    return `The job's cwd ${where} is outside this worker's allowed roots (${policy.allowRoots.join(", ")}).`;
  return undefined;
}

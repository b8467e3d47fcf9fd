/**
 * The bubblewrap argument list for a sandbox policy. Protection is by mount view, never by path
 * checks: protected paths are bind-mounted read-only over the writable workspace, so a symlink or
 * a rename cannot get around them, and masked paths are replaced by empty ones.
 */
import { lstat, mkdir, readdir, realpath, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { createReadDenyFilter } from "../permissions/read-deny.js";
import { ensureBashOutputDir } from "../tools/bash-output-dir.js";
import { findGitEntries } from "./git-guard.js";
import { BASE_BWRAP_FLAGS } from "./probe-sandbox.js";
import type { SandboxPolicy } from "./types.js";
import { walkTree } from "./walk-tree.js";

export type BwrapPlan = {
  /** Arguments for bwrap, up to but excluding the command (`--` is the caller's). */
  args: string[];
  /** The writable directories, canonical. */
  writableRoots: string[];
  /** The protected paths that are mounted read-only, canonical. */
  protectedPaths: string[];
  /** Directories created only to be mount points (absent before); the caller removes them at teardown. */
  createdMountPoints: string[];
  /** Every `.git` and bare repository under the writable roots at start (each mounted read-only); the git guard's baseline. */
  gitEntries?: string[];
};

/** Files in the home directory that run code or grant access when something later reads them. */
const HOME_PROTECTED = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".profile",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".gitconfig",
  ".config/git",
  ".ssh",
];

/** Where host daemons listen; a read-only mount does not stop connect(), so these are masked. */
const HOST_SOCKETS = [
  "/run/user",
  "/run/dbus",
  "/run/docker.sock",
  "/var/run/docker.sock",
  "/run/docker",
  "/run/containerd",
  "/run/podman",
  "/run/snapd.socket",
  "/run/systemd/private",
  "~/.gnupg",
  "~/.docker/run",
];

/** Expands `~/` and resolves a relative path against `cwd`. */
export function expandPath(path: string, options: { cwd: string; homeDir: string }): string {
  if (path === "~") return options.homeDir;
  if (path.startsWith("~/")) return join(options.homeDir, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(options.cwd, path);
}

/** The canonical path: symlinks resolved, or for a missing path its parent's canonical path. */
async function canonical(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(await canonical(parent), basename(path));
  }
}

async function kindOf(path: string): Promise<"dir" | "file" | "missing"> {
  try {
    return (await stat(path)).isDirectory() ? "dir" : "file";
  } catch {
    // A dangling symlink is "something" too: masking it keeps its target name unusable.
    return (await lstat(path)
      .then(() => true)
      .catch(() => false))
      ? "file"
      : "missing";
  }
}

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Builds the plan. May create empty directories as mount points for protected directories that
 * do not exist yet (`.gyre/`, `.git/hooks`), so that creating them inside the sandbox fails too;
 * they are listed in `createdMountPoints`. The command starts in `options.chdir` (default: the
 * policy's cwd).
 */
export async function buildBwrapArgs(policy: SandboxPolicy, options: { chdir?: string } = {}): Promise<BwrapPlan> {
  const expand = (path: string) => expandPath(path, policy);
  const args = [...BASE_BWRAP_FLAGS.filter((flag) => policy.network === false || flag !== "--unshare-net")];
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  // The supervisor runs on this Node: one installed under /tmp (a registry package unpacked into a
  // temp dir) would vanish behind the private /tmp, so its install folder stays in view, read-only.
  const runtime = dirname(dirname(await canonical(process.execPath)));
  if (isInside(runtime, "/tmp")) args.push("--ro-bind", runtime, runtime);
  // The bash tool's saved full outputs, so the path a result names can be read from here too.
  const outputs = await ensureBashOutputDir().catch(() => undefined);
  if (outputs) args.push("--ro-bind", outputs, outputs);

  const writableRoots: string[] = [];
  if (policy.mode === "workspace-write") {
    for (const root of [policy.cwd, ...policy.writableRoots]) {
      const real = await canonical(expand(root));
      if ((await kindOf(real)) === "dir" && !writableRoots.includes(real)) writableRoots.push(real);
    }
    writableRoots.sort((a, b) => a.length - b.length);
    for (const root of writableRoots) args.push("--bind", root, root);
  } else {
    // Read-only still needs the workspace in view when it lives under /tmp, which is private here.
    const cwd = await canonical(policy.cwd);
    if ((await kindOf(cwd)) === "dir") args.push("--ro-bind", cwd, cwd);
  }

  const protectedPaths: string[] = [];
  const createdMountPoints: string[] = [];
  const git = writableRoots.length === 0 ? undefined : await findGitEntries(writableRoots);
  const gitEntries = git === undefined ? [] : [...git.found, ...git.bare];
  for (const candidate of protectedCandidates(policy, writableRoots, gitEntries)) {
    const path = await canonical(candidate.path);
    if (protectedPaths.includes(path) || !writableRoots.some((root) => isInside(path, root))) continue;
    const kind = await kindOf(path);
    const missing = kind === "missing" && (await kindOf(dirname(path))) === "dir";
    if (candidate.createIfMissing && (missing || (kind === "dir" && (await isEmptyDir(path))))) {
      // An empty read-only tmpfs, not a bind of the (empty) folder: bwrap needs no source then and
      // makes the mount point again if another session in this folder removed it on its way out.
      // An empty one found here is a mount point a killed gyre left behind: it goes at the end too.
      if (missing) await mkdir(path, { recursive: true });
      createdMountPoints.push(path);
      protectedPaths.push(path);
      args.push("--tmpfs", path, "--remount-ro", path);
      continue;
    }
    if (kind === "missing") continue;
    protectedPaths.push(path);
    args.push("--ro-bind", path, path);
  }

  const masked = [
    ...HOST_SOCKETS,
    ...socketsFromEnv(policy.hostEnv),
    ...policy.denyRead,
    ...(await deniedByRules(policy)),
  ];
  for (const path of new Set(await Promise.all(masked.map((item) => canonical(expand(item)))))) {
    const kind = await kindOf(path);
    if (kind === "dir") args.push("--tmpfs", path, "--remount-ro", path);
    else if (kind === "file") args.push("--ro-bind", "/dev/null", path);
  }
  args.push("--chdir", await canonical(options.chdir ?? policy.cwd));
  // The guard's baseline: the `.git` entries found, plus the empty ones just made as mount points.
  for (const path of protectedPaths) if (basename(path) === ".git" && !gitEntries.includes(path)) gitEntries.push(path);
  return { args, writableRoots, protectedPaths, createdMountPoints, gitEntries };
}

type Candidate = { path: string; createIfMissing: boolean };

function protectedCandidates(policy: SandboxPolicy, writableRoots: string[], gitEntries: string[]): Candidate[] {
  const candidates: Candidate[] = [];
  for (const root of writableRoots) {
    candidates.push(
      // The whole `.git` (a directory, or a worktree's file naming the real one), read-only and a
      // mount point, so it can be neither written, renamed nor replaced; a missing one is an empty
      // read-only directory, so none can be created (git on the host ignores an empty `.git`).
      { path: join(root, ".git"), createIfMissing: true },
      { path: join(root, ".gyre"), createIfMissing: true },
      // Missing, an empty read-only directory: nothing can be written there, and unlike a file it
      // never shows in the user's checkpoints or diffs (git does not track an empty folder).
      { path: join(root, ".mcp.json"), createIfMissing: true },
    );
  }
  // Nested repositories (submodules' `.git` files, bare repositories) present at the start, read-only the same way.
  for (const path of gitEntries) candidates.push({ path, createIfMissing: false });
  candidates.push({ path: policy.gyreHome, createIfMissing: false });
  for (const name of HOME_PROTECTED) candidates.push({ path: join(policy.homeDir, name), createIfMissing: false });
  for (const path of policy.protectedPaths) {
    candidates.push({ path: expandPath(path, policy), createIfMissing: false });
  }
  return candidates;
}

/** What the `read(...)` deny rules match at start: under the cwd by a walk, elsewhere by exact name. */
async function deniedByRules(policy: SandboxPolicy): Promise<string[]> {
  const patterns = policy.denyReadPatterns ?? [];
  const denied = await createReadDenyFilter(patterns, policy);
  if (!denied) return [];
  const found: string[] = [];
  for (const pattern of patterns) {
    const absolute = pattern.startsWith("/") || pattern.startsWith("~/");
    if (absolute && !/[*?[{]/.test(pattern)) found.push(expandPath(pattern, policy));
  }
  await walkTree([await canonical(policy.cwd)], (path) => {
    if (!denied(path)) return true;
    found.push(path);
    return false;
  });
  return found;
}

function socketsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const sockets: string[] = [];
  if (env.SSH_AUTH_SOCK) sockets.push(env.SSH_AUTH_SOCK);
  if (env.DOCKER_HOST?.startsWith("unix://")) sockets.push(env.DOCKER_HOST.slice("unix://".length));
  if (env.XDG_RUNTIME_DIR) sockets.push(env.XDG_RUNTIME_DIR);
  return sockets;
}

async function isEmptyDir(path: string): Promise<boolean> {
  return (await readdir(path).catch(() => ["?"])).length === 0;
}

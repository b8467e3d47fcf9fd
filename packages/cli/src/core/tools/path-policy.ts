/**
 * The workspace boundary: every path read, write, edit, ls, grep and find touch goes through
 * {@link PathPolicy.resolve}. A path is allowed when its real path (symlinks followed) lies in the
 * workspace or under a directory the user allowed; everything else is refused with an error that
 * names the policy and how to lift it.
 */
import { homedir } from "node:os";
import * as nodePath from "node:path";
import { parseShownPath, showPath } from "./file-names.js";
import { lookalikePaths } from "./lookalike-paths.js";
import { createNodeFileSystem, errorCode, type ToolFileSystem } from "./tool-fs.js";

/** Longer paths are refused outright: no real file needs them and they hint at abuse. */
export const MAX_PATH_LENGTH = 4096;

export type PathPolicyOptions = {
  /** The workspace root; relative paths resolve against it. */
  cwd: string;
  /** Extra directories the user allowed (`--allow-path DIR`, the `allowedPaths` setting). */
  allowedPaths?: readonly string[];
  fs: ToolFileSystem;
  /** What `~` expands to. Default: the OS home directory. */
  homeDir?: string;
};

/** A path that passed the policy. */
export type ResolvedPath = {
  /** The absolute path as the caller wrote it (lexically normalised). */
  absolutePath: string;
  /** The canonical path (symlinks resolved); tools operate on this one. */
  realPath: string;
  /** How to show the path to the model: relative to the workspace when inside it, non-UTF-8 bytes as `\xHH`. */
  displayPath: string;
  /** Whether the file or directory exists now. */
  exists: boolean;
};

export type PathPolicy = {
  /** The canonical workspace root. */
  workspaceRoot(): Promise<string>;
  /**
   * Resolves and checks `path`; throws an Error written for the model when it is refused. `\xHH`
   * escapes (HH 80–FF) name the bytes of a non-UTF-8 name unless a file with the literal name exists.
   */
  resolve(path: string): Promise<ResolvedPath>;
  /** How to show an absolute canonical path to the model (non-UTF-8 bytes as `\xHH`). */
  display(realPath: string): Promise<string>;
};

/** Whether `path` is `root` or lies beneath it. Compares with the separator so /proj ≠ /proj-secret. */
export function isWithin(root: string, path: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(nodePath.sep) ? root : root + nodePath.sep;
  return path.startsWith(prefix);
}

/** Creates the policy. Canonical roots are computed once, on first use. */
export function createPathPolicy(options: PathPolicyOptions): PathPolicy {
  const { fs } = options;
  const home = options.homeDir ?? homedir();
  let roots: Promise<{ workspace: string; allowed: string[] }> | undefined;

  const loadRoots = () => {
    roots ??= (async () => {
      const workspace = await realpathOrSelf(fs, nodePath.resolve(options.cwd));
      const allowed = await Promise.all(
        (options.allowedPaths ?? []).map((dir) => realpathOrSelf(fs, expandPath(dir, options.cwd, home))),
      );
      return { workspace, allowed };
    })();
    return roots;
  };

  const display = async (realPath: string) => {
    const { workspace } = await loadRoots();
    if (realPath === workspace) return ".";
    return showPath(isWithin(workspace, realPath) ? nodePath.relative(workspace, realPath) : realPath);
  };

  const resolveExact = async (path: string, absolutePath: string): Promise<ResolvedPath> => {
    const { realPath, exists } = await canonicalize(fs, absolutePath);
    const { workspace, allowed } = await loadRoots();
    const inside = (real: string) => isWithin(workspace, real) || allowed.some((dir) => isWithin(dir, real));
    if (!inside(realPath)) throw new Error(refusal(path, realPath, workspace));
    if (!exists) {
      await assertWorkspaceExists(fs, workspace);
      // The file may exist under a look-alike spelling; each candidate passes the same check.
      for (const candidate of lookalikePaths(absolutePath)) {
        const found = await canonicalize(fs, candidate);
        if (found.exists && inside(found.realPath))
          return {
            absolutePath: candidate,
            realPath: found.realPath,
            displayPath: await display(found.realPath),
            exists: true,
          };
      }
    }
    return { absolutePath, realPath, displayPath: await display(realPath), exists };
  };

  return {
    workspaceRoot: async () => (await loadRoots()).workspace,
    display,
    async resolve(path) {
      checkShape(path);
      const absolutePath = expandPath(path, options.cwd, home);
      const bytes = parseShownPath(absolutePath);
      if (bytes === undefined) return resolveExact(path, absolutePath);
      // Both spellings pass the same checks; the literal one wins only when such a file exists.
      const literal = await resolveExact(path, absolutePath);
      return literal.exists ? literal : resolveExact(path, bytes);
    },
  };
}

/** "Not found" would be a lie when the whole workspace is gone: say that instead. */
async function assertWorkspaceExists(fs: ToolFileSystem, workspace: string): Promise<void> {
  const missing = await fs.stat(workspace).then(
    () => false,
    (error: unknown) => errorCode(error) === "ENOENT",
  );
  if (missing)
    throw new Error(
      `The workspace ${showPath(workspace)} no longer exists (deleted or moved while gyre ran). ` +
        "Ask the user to restore it or to restart gyre in an existing folder.",
    );
}

function checkShape(path: string): void {
  if (typeof path !== "string" || path.length === 0) throw new Error("The path is empty. Pass a file path.");
  if (path.includes("\0"))
    throw new Error("The path contains a NUL byte, which no file name can hold. Pass a plain path.");
  if (path.length > MAX_PATH_LENGTH) {
    throw new Error(`The path is ${path.length} characters long (limit ${MAX_PATH_LENGTH}). Pass a shorter path.`);
  }
}

/**
 * Strips a leading `@` (models copy file mentions), turns no-break spaces (U+00A0, which pasting
 * from web pages and chat apps puts into "My Documents") into plain spaces, expands `~`, and
 * resolves against `cwd`.
 */
export function expandPath(path: string, cwd: string, home: string): string {
  const plain = path.replaceAll("\u00a0", " ");
  let expanded = plain.startsWith("@") ? plain.slice(1) : plain;
  if (expanded === "~") expanded = home;
  else if (expanded.startsWith("~/")) expanded = nodePath.join(home, expanded.slice(2));
  return nodePath.resolve(cwd, expanded);
}

/**
 * The real path of `absolutePath`. For a path that does not exist yet, the nearest existing
 * ancestor is resolved and the missing tail appended, so a symlinked parent cannot smuggle a new
 * file outside the workspace.
 */
async function canonicalize(fs: ToolFileSystem, absolutePath: string): Promise<{ realPath: string; exists: boolean }> {
  const missing: string[] = [];
  let current = absolutePath;
  for (;;) {
    try {
      const real = await fs.realpath(current);
      return {
        realPath: missing.length === 0 ? real : nodePath.join(real, ...missing.reverse()),
        exists: missing.length === 0,
      };
    } catch (error) {
      const code = errorCode(error);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      const parent = nodePath.dirname(current);
      if (parent === current) return { realPath: absolutePath, exists: false };
      missing.push(nodePath.basename(current));
      current = parent;
    }
  }
}

async function realpathOrSelf(fs: ToolFileSystem, path: string): Promise<string> {
  return (await canonicalize(fs, path)).realPath;
}

function refusal(path: string, realPath: string, workspace: string): string {
  const shown = realPath === path ? `"${path}"` : `"${path}" (real path ${showPath(realPath)})`;
  return (
    `Refused by the workspace policy: ${shown} is outside the workspace ${workspace}. ` +
    "Tools may only touch files inside the workspace or under directories the user allowed. " +
    `Work inside the workspace, or ask the user to allow the directory with --allow-path ${showPath(nodePath.dirname(realPath))} ` +
    `(or an "allowedPaths" entry in settings).`
  );
}

/**
 * The file system and path policy a file tool uses: the ones given (a tool set shares them),
 * else the real file system and a policy for `cwd` and `allowedPaths`.
 */
export function resolveFileAccess(options: {
  cwd: string;
  allowedPaths?: readonly string[];
  fs?: ToolFileSystem;
  pathPolicy?: PathPolicy;
}): { fs: ToolFileSystem; policy: PathPolicy } {
  const fs = options.fs ?? createNodeFileSystem();
  const policy = options.pathPolicy ?? createPathPolicy({ cwd: options.cwd, allowedPaths: options.allowedPaths, fs });
  return { fs, policy };
}

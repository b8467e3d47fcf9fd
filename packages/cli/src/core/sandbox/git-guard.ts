/**
 * Keeps bash from planting a git repository the user's own git would later trust (docs/safety.md,
 * "Git folders"). Every `.git` present when the sandbox starts is mounted read-only (see
 * `bwrap-args.ts`); a mount cannot stop `mkdir sub/.git`, so after every command, and when the
 * sandbox ends, the writable roots are searched for a `.git` that was not there at the start and
 * each one is renamed out of git's sight. A bare repository (a folder holding `HEAD`, `objects/`
 * and `refs/`, which git uses when run inside it) is the same danger under another name: a new one
 * has its `HEAD` renamed, which makes it no repository. The renames keep the files: nothing the
 * model made is lost.
 */
import { lstat, rename } from "node:fs/promises";
import { dirname, join } from "node:path";
import { WALK_DIRECTORY_LIMIT, walkTree } from "./walk-tree.js";

/** The name a planted `.git` is given (plus a number when taken); git never looks for it. */
export const BLOCKED_GIT_NAME = ".git-blocked-by-gyre";
/** The name a new bare repository's `HEAD` is given. */
export const BLOCKED_HEAD_NAME = "HEAD-blocked-by-gyre";

/** `.git` entries and bare repositories (folders) found; `complete` is false when the walk was cut short. */
export type GitSearch = { found: string[]; bare: string[]; complete: boolean };

/**
 * Every entry named `.git` (directory, file or symlink) under `roots`, without descending into
 * them. Symlinks are not followed. `complete` is false when the directory limit was reached.
 */
export async function findGitEntries(roots: readonly string[], limit = WALK_DIRECTORY_LIMIT): Promise<GitSearch> {
  const found: string[] = [];
  const heads: string[] = [];
  const complete = await walkTree(
    roots,
    (path, entry) => {
      if (entry.name === ".git") found.push(path);
      else if (entry.name === "HEAD" && !entry.isDirectory()) heads.push(dirname(path));
      return true;
    },
    limit,
  );
  const bare: string[] = [];
  for (const dir of heads) if ((await isDir(join(dir, "objects"))) && (await isDir(join(dir, "refs")))) bare.push(dir);
  return { found, bare, complete };
}

function isDir(path: string): Promise<boolean> {
  return lstat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

export type GitGuard = {
  /**
   * Renames every `.git` under the roots that was not there at the start; returns one sentence
   * for the model naming what was moved (or that the search was cut short), else undefined.
   */
  check(): Promise<string | undefined>;
};

/** A guard for `roots` whose allowed `.git` entries are `baseline` (the ones mounted read-only). */
export function createGitGuard(options: {
  roots: readonly string[];
  baseline: readonly string[];
  limit?: number;
}): GitGuard {
  const allowed = new Set(options.baseline);
  let queue: Promise<unknown> = Promise.resolve();
  const check = async (): Promise<string | undefined> => {
    const search = await findGitEntries(options.roots, options.limit);
    const moved: string[] = [];
    for (const dir of search.bare) {
      if (allowed.has(dir)) continue;
      const ok = await rename(join(dir, "HEAD"), join(dir, BLOCKED_HEAD_NAME)).then(
        () => true,
        () => false,
      );
      moved.push(
        ok
          ? `${dir}/HEAD → ${BLOCKED_HEAD_NAME} (a bare repository)`
          : `${dir} (a bare repository; do not run git there)`,
      );
    }
    for (const path of search.found) {
      if (allowed.has(path)) continue;
      const target = await freeName(path);
      const ok = await rename(path, target).then(
        () => true,
        () => false,
      );
      moved.push(ok ? `${path} → ${target}` : `${path} (could not be moved; do not run git there)`);
    }
    const notes: string[] = [];
    if (moved.length > 0) {
      notes.push(
        `[sandbox] a new .git was renamed so that the user's git never runs its config or hooks: ${moved.join(", ")}. ` +
          "Commands in the sandbox may not create git repositories inside the workspace; use /tmp for a scratch repository, or ask the user.",
      );
    }
    if (!search.complete) {
      notes.push(
        `[sandbox] the workspace has more than ${options.limit ?? WALK_DIRECTORY_LIMIT} folders, so it was not fully searched for new .git folders.`,
      );
    }
    return notes.length === 0 ? undefined : notes.join("\n");
  };
  return {
    // One search at a time, each after the one before: two renames of the same path never race.
    check: () => {
      const next = queue.then(check, check);
      queue = next;
      return next;
    },
  };
}

async function freeName(path: string): Promise<string> {
  const base = join(path, "..", BLOCKED_GIT_NAME);
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? base : `${base}-${n}`;
    const taken = await lstat(candidate).then(
      () => true,
      () => false,
    );
    if (!taken) return candidate;
  }
}

/**
 * The shadow repository of one workspace: `$GYRE_HOME/checkpoints/<workspace-id>/` holds its own
 * GIT_DIR and index; the workspace is the work tree. The project's `.git`, index, hooks and config
 * are never read or written (see run-git.ts for the isolation).
 */
import { createHash } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { lstat, mkdir, readdir, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { restoreChanges } from "./restore-tree.js";
import { GitFailure, type GitLocation, runGit, splitNul } from "./run-git.js";
import { coveredDifferences, diffTrees, type TreeDifference } from "./tree-diff.js";
import { type CheckpointLimits, DEFAULT_CHECKPOINT_LIMITS, type SkippedFile, type Snapshot } from "./types.js";

/** Attributes that beat every `.gitattributes`: content goes in and out byte for byte. */
const ATTRIBUTES = "* -text -eol -ident -filter -diff -merge -working-tree-encoding\n";
const REF_PREFIX = "refs/checkpoints/";
const STALE_LOCK_MS = 60_000;

/** The folder name of a workspace's shadow repository: a hash of its real path. */
export function workspaceId(workspace: string): string {
  let real = workspace;
  try {
    real = realpathSync(workspace);
  } catch {
    // a workspace that vanished still has the id of its path
  }
  return createHash("sha256").update(real).digest("hex").slice(0, 16);
}

export type OpenShadowOptions = {
  /** `$GYRE_HOME`. */
  gyreHome: string;
  workspace: string;
  limits?: Partial<CheckpointLimits>;
  gitBinary?: string;
};

/** One workspace's snapshots. Calls are serialised: one git process touches the index at a time. */
export class ShadowRepository {
  readonly limits: CheckpointLimits;
  private queue: Promise<unknown> = Promise.resolve();
  /** The tree last written and the index it came from (see treeOfUnchangedIndex). */
  private written: { tree: string; index: string } | undefined;

  /** What the last snapshot skipped: a snapshot of a few paths still reports the others. */
  private lastSkipped: SkippedFile[] = [];

  private constructor(
    readonly location: GitLocation,
    readonly dir: string,
    limits: Partial<CheckpointLimits>,
  ) {
    this.limits = { ...DEFAULT_CHECKPOINT_LIMITS, ...limits };
  }

  /** Creates the shadow repository on first use. Rejects when git cannot run. */
  static async open(options: OpenShadowOptions): Promise<ShadowRepository> {
    const workTree = realpathSync(options.workspace);
    const dir = join(options.gyreHome, "checkpoints", workspaceId(workTree));
    const location: GitLocation = {
      gitDir: join(dir, "git"),
      workTree,
      indexFile: join(dir, "index"),
      ...(options.gitBinary ? { gitBinary: options.gitBinary } : {}),
    };
    const repository = new ShadowRepository(location, dir, options.limits ?? {});
    if (!existsSync(join(location.gitDir, "HEAD"))) await repository.initialise();
    return repository;
  }

  private async initialise(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await runGit(this.location, ["init", "-q", "--template="]);
    await mkdir(join(this.location.gitDir, "info"), { recursive: true });
    await writeFile(join(this.location.gitDir, "info", "attributes"), ATTRIBUTES);
    await writeFile(join(this.location.gitDir, "info", "exclude"), ".git\n");
    await writeFile(join(this.dir, "workspace"), `${this.location.workTree}\n`);
  }

  /** Runs `task` after every earlier call of this repository has finished. */
  private serialise<T>(task: () => Promise<T>): Promise<T> {
    const next = this.queue.then(task, task);
    this.queue = next.catch(() => {});
    return next;
  }

  /**
   * Records the work tree as it is now (respecting .gitignore and the size limits). With `paths`
   * (workspace-relative, e.g. what write and edit reported changing) only those are looked at, so
   * the cost no longer grows with the workspace; everything else keeps its last recorded state.
   */
  snapshot(options: { paths?: readonly string[] } = {}): Promise<Snapshot> {
    return this.serialise(() => this.withStaleLockRetry(() => this.takeSnapshot(options.paths)));
  }

  private async takeSnapshot(paths: readonly string[] | undefined): Promise<Snapshot> {
    const started = performance.now();
    const records = paths?.length === 0 ? [] : await this.listChanged(paths);
    const plan = await planUpdate(this.location.workTree, records, this.limits);
    if (plan.update.length > 0)
      await runGit(this.location, ["update-index", "--add", "--remove", "-z", "--stdin"], {
        input: `${plan.update.join("\0")}\0`,
      });
    if (plan.dropTracked.length > 0)
      await runGit(this.location, ["update-index", "--force-remove", "-z", "--stdin"], {
        input: `${plan.dropTracked.join("\0")}\0`,
      });
    const unchanged = plan.update.length === 0 && plan.dropTracked.length === 0;
    const tree = (unchanged && (await this.treeOfUnchangedIndex())) || (await this.writeTree());
    await this.keep(tree);
    const skipped = paths === undefined ? plan.skipped : carryOver(this.lastSkipped, paths, plan.skipped);
    this.lastSkipped = skipped;
    return { tree, skipped, changed: plan.update, durationMs: performance.now() - started };
  }

  private async writeTree(): Promise<string> {
    const tree = (await runGit(this.location, ["write-tree"])).stdout.toString("utf8").trim();
    const index = await this.indexStamp();
    this.written = index === undefined ? undefined : { tree, index };
    return tree;
  }

  /**
   * When nothing changed, the tree last written, sparing a git process before the first tool of
   * most runs; only while the index file is the one that tree came from (another gyre in the
   * same workspace shares it).
   */
  private async treeOfUnchangedIndex(): Promise<string | undefined> {
    if (this.written === undefined) return undefined;
    return (await this.indexStamp()) === this.written.index ? this.written.tree : undefined;
  }

  /** Identifies one version of the index file: git replaces it (new inode) on every write. */
  private async indexStamp(): Promise<string | undefined> {
    const info = await stat(this.location.indexFile, { bigint: true }).catch(() => undefined);
    return info && `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
  }

  /** `ls-files` records of what differs from the index: all of the work tree, or just `paths`. */
  private async listChanged(paths: readonly string[] | undefined): Promise<string[]> {
    // `:(literal)` so a path with glob characters names only itself.
    const pathspec = paths === undefined ? [] : ["--", ...paths.map((path) => `:(literal)${path}`)];
    const args = ["ls-files", "-z", "-t", "-o", "-m", "-d", "--exclude-standard", ...pathspec];
    const listed = await runGit(this.location, args);
    return expandNestedRepositories(this.location, splitNul(listed.stdout));
  }

  /** A loose ref per tree keeps it alive; its mtime says when it was last recorded (for pruning). */
  private async keep(tree: string): Promise<void> {
    const path = join(this.location.gitDir, REF_PREFIX, tree);
    if (existsSync(path)) {
      const now = new Date();
      await utimes(path, now, now);
      return;
    }
    await mkdir(join(this.location.gitDir, REF_PREFIX), { recursive: true });
    await writeFile(`${path}.tmp`, `${tree}\n`);
    await rename(`${path}.tmp`, path);
  }

  /** A kill -9 during a snapshot leaves index.lock behind; an old one is removed and the call retried once. */
  private async withStaleLockRetry<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } catch (error) {
      if (!(error instanceof GitFailure) || !error.stderr.includes("index.lock")) throw error;
      const lock = `${this.location.indexFile}.lock`;
      const age = await stat(lock).then(
        (info) => Date.now() - info.mtimeMs,
        () => Number.POSITIVE_INFINITY,
      );
      if (age < STALE_LOCK_MS) throw error;
      await rm(lock, { force: true });
      return task();
    }
  }

  /** Whether the shadow repository still holds `tree` (it may have been pruned). */
  async hasTree(tree: string): Promise<boolean> {
    if (!/^[0-9a-f]{40,64}$/.test(tree)) return false;
    const result = await runGit(this.location, ["cat-file", "-t", tree], { okCodes: [1, 128] });
    return result.code === 0 && result.stdout.toString("utf8").trim() === "tree";
  }

  /** How `from` differs from `to`, seen from `to` (added = only in `to`). */
  diff(from: string, to: string): Promise<TreeDifference[]> {
    return this.serialise(() => diffTrees(this.location, from, to));
  }

  /**
   * What restoring `target` would change in the work tree last recorded as `current`: the
   * differences it covers, and the paths it does not (skipped in either snapshot).
   */
  async planRestore(
    target: Pick<Snapshot, "tree" | "skipped">,
    current: Pick<Snapshot, "tree" | "skipped">,
  ): Promise<{ changes: TreeDifference[]; uncovered: string[] }> {
    const { covered, uncovered } = coveredDifferences(await this.diff(current.tree, target.tree), [
      target.skipped,
      current.skipped,
    ]);
    return { changes: covered, uncovered };
  }

  /** Makes the work tree match `to` for the given differences (from `diff(current, to)`). */
  restore(changes: readonly TreeDifference[]): Promise<void> {
    return this.serialise(() => restoreChanges(this.location, changes));
  }

  /** Bytes the shadow repository's objects take on disk. */
  async diskUse(): Promise<number> {
    const output = (await runGit(this.location, ["count-objects", "-v"])).stdout.toString("utf8");
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(output)?.[1] ?? 0);
    return (field("size") + field("size-pack") + field("size-garbage")) * 1024;
  }

  /**
   * Keeps disk use under `maxRepositoryBytes`: drops the refs of the least recently recorded trees
   * (never `protect`ed ones) and runs `git gc --prune=now` until it fits. Returns the trees dropped.
   */
  prune(protect: readonly string[] = []): Promise<string[]> {
    return this.serialise(async () => {
      const dropped: string[] = [];
      for (let round = 0; round < 8; round++) {
        const use = await this.diskUse();
        if (use <= this.limits.maxRepositoryBytes) break;
        const refs = (await this.refsOldestFirst()).filter((tree) => !protect.includes(tree));
        if (refs.length <= 1 && round > 0) break;
        // Drop in proportion to the excess, at least one, always keeping the newest.
        const excess = 1 - this.limits.maxRepositoryBytes / use;
        const count = Math.min(refs.length - 1, Math.max(1, Math.ceil(refs.length * excess)));
        for (const tree of refs.slice(0, count)) {
          await rm(join(this.location.gitDir, REF_PREFIX, tree), { force: true });
          dropped.push(tree);
        }
        await runGit(this.location, ["gc", "-q", "--prune=now"]);
        if (count === 0) break;
      }
      return dropped;
    });
  }

  private async refsOldestFirst(): Promise<string[]> {
    const dir = join(this.location.gitDir, REF_PREFIX);
    const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => !name.endsWith(".tmp"));
    const dated = await Promise.all(
      names.map(async (name) => ({ name, mtime: (await stat(join(dir, name))).mtimeMs })),
    );
    return dated.sort((a, b) => a.mtime - b.mtime).map((entry) => entry.name);
  }
}

/** The skipped paths of an earlier snapshot that `paths` did not look at again, plus `fresh`. */
function carryOver(earlier: readonly SkippedFile[], paths: readonly string[], fresh: SkippedFile[]): SkippedFile[] {
  const looked = new Set(paths);
  const kept = earlier.filter(
    (file) => !looked.has(file.path) && ![...looked].some((path) => file.path.startsWith(`${path}/`)),
  );
  return [...kept, ...fresh].sort((a, b) => a.path.localeCompare(b.path));
}

const MAX_NESTING = 8;

/**
 * Git lists a nested repository it has no entry under as one `dir/` record and never looks
 * inside. Its files are listed here, as plain untracked files (its own .gitignore applies, its
 * `.git` is left out), so the snapshot covers them; once any is in the index, git descends into
 * the directory by itself on later snapshots.
 */
async function expandNestedRepositories(location: GitLocation, records: string[], depth = 0): Promise<string[]> {
  const expanded: string[] = [];
  for (const record of records) {
    const path = record.slice(2);
    if (!path.endsWith("/") || depth >= MAX_NESTING) {
      expanded.push(record);
      continue;
    }
    const nested: GitLocation = {
      ...location,
      workTree: join(location.workTree, path),
      // Never written: with an empty index every file of the nested repository is untracked.
      indexFile: join(location.gitDir, "nested-listing-index"),
    };
    const listed = await runGit(nested, ["ls-files", "-z", "-t", "-o", "--exclude-standard"]).catch(() => undefined);
    if (listed === undefined) {
      expanded.push(record);
      continue;
    }
    const inner = splitNul(listed.stdout).map((entry) => `${entry.slice(0, 2)}${path}${entry.slice(2)}`);
    expanded.push(...(await expandNestedRepositories(location, inner, depth + 1)));
  }
  return expanded;
}

type UpdatePlan = { update: string[]; dropTracked: string[]; skipped: SkippedFile[] };

/**
 * Sorts what `ls-files -t -o -m -d` listed into paths to record and paths to skip. Tags: `?`
 * untracked, `C` changed, `R` removed. A skipped path that was tracked leaves the index, so the
 * tree never carries a stale version of it.
 */
async function planUpdate(workTree: string, records: string[], limits: CheckpointLimits): Promise<UpdatePlan> {
  const paths = new Map<string, boolean>();
  for (const record of records) {
    const path = record.slice(2);
    paths.set(path, (paths.get(path) ?? false) || record[0] !== "?");
  }
  const skipped: SkippedFile[] = [];
  const sized: { path: string; bytes: number; tracked: boolean }[] = [];
  const update: string[] = [];
  await Promise.all(
    [...paths].map(async ([path, tracked]) => {
      if (path.endsWith("/")) return skipped.push({ path: path.slice(0, -1), bytes: 0, reason: "nested_repository" });
      const info = await lstat(join(workTree, path)).catch(() => undefined);
      if (info === undefined) return update.push(path);
      if (info.isFile() && info.size > limits.maxFileBytes) {
        skipped.push({ path, bytes: info.size, reason: "file_too_large" });
        if (tracked) sized.push({ path, bytes: -1, tracked });
        return;
      }
      sized.push({ path, bytes: info.isFile() ? info.size : 0, tracked });
    }),
  );
  const dropTracked = sized.filter((entry) => entry.bytes < 0).map((entry) => entry.path);
  let total = 0;
  for (const entry of sized.filter((item) => item.bytes >= 0).sort((a, b) => a.bytes - b.bytes)) {
    total += entry.bytes;
    if (total <= limits.maxSnapshotBytes) update.push(entry.path);
    else {
      skipped.push({ path: entry.path, bytes: entry.bytes, reason: "snapshot_too_large" });
      if (entry.tracked) dropTracked.push(entry.path);
    }
  }
  skipped.sort((a, b) => a.path.localeCompare(b.path));
  return { update: update.sort(), dropTracked, skipped };
}

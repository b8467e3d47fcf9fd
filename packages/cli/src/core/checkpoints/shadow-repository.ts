/**
 * The shadow repository of one workspace: `$GYRE_HOME/checkpoints/<workspace-id>/` holds its own
 * GIT_DIR and index; the workspace is the work tree. The project's `.git`, index, hooks and config
 * are never read or written (see run-git.ts for the isolation).
 */
import { createHash } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { mkdir, readdir, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { restoreChanges } from "./restore-tree.js";
import { GitFailure, type GitLocation, runGit } from "./run-git.js";
import { carryOver, listChanged, planNamed, planUpdate, visiblePaths } from "./snapshot-plan.js";
import { coveredDifferences, diffTrees, type TreeDifference } from "./tree-diff.js";
import { type CheckpointLimits, DEFAULT_CHECKPOINT_LIMITS, type SkippedFile, type Snapshot } from "./types.js";

/** What recording one snapshot's paths into the index did. */
type Recorded = {
  changed: string[];
  skipped: SkippedFile[];
  /** The paths looked at; undefined for the whole work tree. */
  looked: readonly string[] | undefined;
  /** The tree the index holds, when known without a write-tree (nothing changed). */
  tree?: string;
};

/** What `git add` says of an explicitly named path that .gitignore excludes. */
const IGNORED_PATHS = /ignored by one of your \.gitignore files/;

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
    const named = paths?.length ? await this.recordNamed(paths) : undefined;
    const recorded = named ?? (await this.recordListed(paths));
    const tree = recorded.tree ?? (await this.writeTree());
    await this.keep(tree);
    const looked = recorded.looked;
    const skipped = looked === undefined ? recorded.skipped : carryOver(this.lastSkipped, looked, recorded.skipped);
    this.lastSkipped = skipped;
    return { tree, skipped, changed: recorded.changed, durationMs: performance.now() - started };
  }

  /** The general route: lists what differs from the index (all, or just `paths`), then records it. */
  private async recordListed(paths: readonly string[] | undefined): Promise<Recorded> {
    const visible = paths && (await visiblePaths(this.location.workTree, paths));
    const records = visible?.length === 0 ? [] : await listChanged(this.location, visible);
    const plan = await planUpdate(this.location.workTree, records, this.limits);
    if (plan.update.length > 0)
      await runGit(this.location, ["update-index", "--add", "--remove", "-z", "--stdin"], {
        input: `${plan.update.join("\0")}\0`,
      });
    await this.dropFromIndex(plan.dropTracked);
    const unchanged = plan.update.length === 0 && plan.dropTracked.length === 0;
    const tree = unchanged ? await this.treeOfUnchangedIndex() : undefined;
    return { changed: plan.update, skipped: plan.skipped, looked: visible, ...(tree ? { tree } : {}) };
  }

  /**
   * The quick route for files a write or edit named: one `git add` applies .gitignore, hashes
   * what changed and says which (`-v`), with no listing first. Undefined when a path needs the
   * general route (see planNamed) or git refused the add.
   */
  private async recordNamed(paths: readonly string[]): Promise<Recorded | undefined> {
    const plan = await planNamed(this.location.workTree, paths, this.limits);
    if (plan === undefined) return undefined;
    let changed: string[] = [];
    const treeBefore = await this.treeOfUnchangedIndex();
    if (plan.add.length > 0) {
      const args = ["add", "-A", "-v", "--", ...plan.add.map((path) => `:(literal)${path}`)];
      // Exit 1 with only "ignored" complaints: the other paths were added.
      const added = await runGit(this.location, args, { okCodes: [1] }).catch(() => undefined);
      if (added === undefined || (added.code === 1 && !IGNORED_PATHS.test(added.stderr))) return undefined;
      const said = added.stdout.toString("utf8");
      changed = plan.add.filter((path) => said.includes(`add '${path}'\n`));
    }
    await this.dropFromIndex(plan.drop);
    // git add refreshes the index even when no content changed; its tree is still the last one.
    const unchanged = changed.length === 0 && plan.drop.length === 0 && treeBefore !== undefined;
    const tree = unchanged ? await this.rewritten(treeBefore) : undefined;
    return { changed, skipped: plan.skipped, looked: paths, ...(tree ? { tree } : {}) };
  }

  /** Takes paths out of the index (skipped files must not keep a stale version); untracked ones are no-ops. */
  private async dropFromIndex(paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    await runGit(this.location, ["update-index", "--force-remove", "-z", "--stdin"], {
      input: `${paths.join("\0")}\0`,
    });
  }

  /** Notes that the index now on disk holds `tree` (just written, or refreshed with stat data only). */
  private async rewritten(tree: string): Promise<string> {
    const index = await this.indexStamp();
    this.written = index === undefined ? undefined : { tree, index };
    return tree;
  }

  private async writeTree(): Promise<string> {
    return this.rewritten((await runGit(this.location, ["write-tree"])).stdout.toString("utf8").trim());
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

/**
 * Checkpoints (docs/design/rewind.md): snapshots of the workspace in a shadow git repository, so that what a
 * turn changed can be put back. Every type here is plain JSON.
 */

/** Size limits of the shadow repository; all in bytes. */
export type CheckpointLimits = {
  /** A file larger than this is not snapshotted (recorded as skipped). */
  maxFileBytes: number;
  /** New content one snapshot may add; the largest files beyond it are skipped. */
  maxSnapshotBytes: number;
  /** Disk use of one workspace's shadow repository; the oldest snapshots are pruned beyond it. */
  maxRepositoryBytes: number;
};

export const DEFAULT_CHECKPOINT_LIMITS: CheckpointLimits = {
  maxFileBytes: 10 * 1024 * 1024,
  maxSnapshotBytes: 200 * 1024 * 1024,
  maxRepositoryBytes: 1024 * 1024 * 1024,
};

/** Why a path is not in a snapshot; such paths are never touched by a restore. */
export type SkipReason = "file_too_large" | "snapshot_too_large" | "nested_repository";

export type SkippedFile = { path: string; bytes: number; reason: SkipReason };

/** One snapshot: a tree object in the shadow repository and what it left out. */
export type Snapshot = {
  /** The tree id; a ref keeps it from being pruned until the disk cap needs the space. */
  tree: string;
  skipped: SkippedFile[];
  /** Paths whose content was recorded anew (changed since the previous snapshot of the workspace). */
  changed: string[];
  durationMs: number;
};

/** How a path differs between two states, seen from the state being restored to. */
export type FileChange = { path: string; status: "added" | "modified" | "deleted" };

/** The outcome of a restore. */
export type RestoreResult = {
  /** Paths written back or removed. */
  restored: FileChange[];
  /** Paths changed outside gyre since the checkpoint, left as they are (not forced). */
  conflicts: string[];
  /** Paths the checkpoint does not cover (skipped then or now), left as they are. */
  uncovered: string[];
};

/** What `/diff` shows: the changed files since the session's first checkpoint, and with git the patch. */
export type SessionChanges = {
  changes: FileChange[];
  notice?: string;
  caveat?: string;
  /** The checkpoint compared with: its entry id, when it was taken, and its snapshot tree. */
  against?: { entryId: string; timestamp: string; tree: string };
  /** `git diff` of that checkpoint and now (without git: absent). */
  patch?: string;
  /** Per-file lines added and removed (`binary`: not counted). */
  stats?: { path: string; added: number; removed: number; binary?: boolean }[];
  /** Patch lines left out beyond the cap. */
  truncatedLines?: number;
};

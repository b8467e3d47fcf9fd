/**
 * Rewind (docs/design/rewind.md): back to the state before a chosen user message — its files from the
 * checkpoint that holds them, the conversation by moving the session's leaf — or to a checkpoint
 * entry itself (how a rewind is undone). The state a rewind replaces is recorded first as a
 * "rewind" checkpoint. Files changed outside gyre since the checkpoint are conflicts: kept unless
 * forced.
 */
import { GyreError } from "@gyre/ai";
import type { SessionManager } from "../session/session-manager.js";
import type { CheckpointEntry } from "../session/types.js";
import { checkpointBefore, checkpointsSince, type EntryIndex, indexEntries, isOwnChange } from "./find-checkpoints.js";
import type { ShadowRepository } from "./shadow-repository.js";
import type { TreeDifference } from "./tree-diff.js";
import { recordCheckpoint } from "./turn-checkpoints.js";
import type { FileChange, SkippedFile, Snapshot } from "./types.js";

export type RewindRestore = "both" | "code" | "conversation";

export type RewindOptions = {
  session: SessionManager;
  /** The workspace's shadow repository; undefined when git is unavailable. */
  repository: ShadowRepository | undefined;
  /** A user message (go back to before it) or a checkpoint entry (go back to it). */
  entryId: string;
  restore: RewindRestore;
  /** Also overwrite files changed outside gyre since the checkpoint. */
  force?: boolean;
};

/** What a rewind changes (or, from `previewRewind`, would change). */
export type RewindPlan = {
  /** The checkpoint whose files are restored; undefined when gyre changed no files since. */
  checkpointId: string | undefined;
  /** Where the conversation continues: the entry new messages will follow (null: a fresh start). */
  leafId: string | null;
  changes: FileChange[];
  /** Paths changed outside gyre since the checkpoint; kept unless forced. */
  conflicts: string[];
  /** Paths the checkpoint or the work tree now leaves out (too large and the like): never touched. */
  skipped: SkippedFile[];
  /** Why files cannot be restored, when they cannot. */
  notice?: string;
};

export type RewindResult = RewindPlan & {
  /** The "rewind" checkpoint holding the state before this rewind: rewind to it to undo. */
  undoEntryId: string | undefined;
  /** Changes applied (conflicts left out unless forced). */
  restored: FileChange[];
};

type Target = { leafId: string | null; checkpoint: CheckpointEntry | undefined; index: EntryIndex };

function resolveTarget(session: SessionManager, entryId: string): Target {
  const index = indexEntries(session.getEntries());
  const entry = index.byId.get(entryId);
  if (entry?.type === "checkpoint") return { leafId: entry.id, checkpoint: entry, index };
  if (entry?.type !== "message" || entry.message.role !== "user")
    throw new GyreError("usage", `Entry ${entryId} is not a user message or checkpoint of this session.`);
  return { leafId: entry.parentId, checkpoint: checkpointBefore(index, entryId, session.leafId), index };
}

type Prepared = { plan: RewindPlan; current: Snapshot | undefined; covered: TreeDifference[] };

/** Works out a rewind against a snapshot of the work tree as it is now. */
async function prepare(options: RewindOptions, current?: Snapshot): Promise<Prepared> {
  const target = resolveTarget(options.session, options.entryId);
  const plan: RewindPlan = {
    checkpointId: target.checkpoint?.id,
    leafId: target.leafId,
    changes: [],
    conflicts: [],
    skipped: [],
  };
  const { repository } = options;
  if (options.restore === "conversation" || target.checkpoint === undefined) return { plan, current, covered: [] };
  if (repository === undefined) {
    plan.notice = "git is not available, so files cannot be restored; only the conversation can be rewound.";
    return { plan, current, covered: [] };
  }
  if (!(await repository.hasTree(target.checkpoint.ref))) {
    plan.notice = `The files of checkpoint ${target.checkpoint.id} were pruned from the shadow repository.`;
    return { plan, current, covered: [] };
  }
  const now = current ?? (await repository.snapshot());
  const { changes } = await repository.planRestore(
    { tree: target.checkpoint.ref, skipped: target.checkpoint.skipped ?? [] },
    now,
  );
  const outside = await outsideChanges(repository, target, options.session.leafId, now);
  plan.changes = changes.map(({ path, status }) => ({ path, status }));
  plan.conflicts = changes.filter((change) => outside.has(change.path)).map((change) => change.path);
  const skipped = new Map([...(target.checkpoint.skipped ?? []), ...now.skipped].map((file) => [file.path, file]));
  plan.skipped = [...skipped.values()];
  return { plan, current: now, covered: changes };
}

/** Paths changed between checkpoints (and since the last one) by something other than gyre. */
async function outsideChanges(
  repository: ShadowRepository,
  target: Target,
  leafId: string | null,
  now: Snapshot,
): Promise<Set<string>> {
  const checkpoint = target.checkpoint as CheckpointEntry;
  const chain = [checkpoint, ...checkpointsSince(target.index, checkpoint, leafId)];
  const states: { reason: CheckpointEntry["reason"]; ref: string }[] = [...chain, { reason: "rewind", ref: now.tree }];
  const paths = new Set<string>();
  for (let at = 0; at + 1 < states.length; at++) {
    const from = chain[at] as CheckpointEntry;
    const to = states[at + 1] as (typeof states)[number];
    if (isOwnChange(from, to)) continue;
    for (const difference of await repository.diff(from.ref, to.ref)) paths.add(difference.path);
  }
  return paths;
}

/**
 * A leaf move alone writes nothing, so a session reopened after a conversation-only rewind (a
 * `--rewind` script, a crash) would carry on from the old branch. A hidden entry under the new
 * leaf makes it the last one appended, which is where a reopened session continues.
 */
export function markConversationMove(session: SessionManager): void {
  session.appendCustom("gyre.rewind");
}

/** What `rewind` would do, without changing anything: for "show before confirming". */
export async function previewRewind(options: RewindOptions): Promise<RewindPlan> {
  return (await prepare(options)).plan;
}

/**
 * Rewinds. Restores first (so a failure leaves the conversation where it was), then moves the
 * leaf. Throws a `GyreError` for an unknown entry or a session that is not idle.
 */
export async function rewind(options: RewindOptions): Promise<RewindResult> {
  const { session, repository } = options;
  // An unknown entry fails before anything is recorded (no "undo" point for a rewind that never
  // was). `prepare` resolves it again: the entries then include the undo checkpoint.
  resolveTarget(session, options.entryId);
  let undoEntryId: string | undefined;
  let current: Snapshot | undefined;
  if (repository !== undefined && options.restore !== "conversation") {
    const recorded = await recordCheckpoint(repository, session, "rewind");
    undoEntryId = recorded.entryId;
    current = recorded.snapshot;
    // Durable before any file changes, so a crash mid-restore can still be undone.
    await session.flush();
  }
  const { plan, covered } = await prepare(options, current);
  const keep = new Set(options.force ? [] : plan.conflicts);
  const apply = covered.filter((change) => !keep.has(change.path));
  if (repository !== undefined && apply.length > 0) await repository.restore(apply);
  if (options.restore !== "code") {
    if (plan.leafId === null) session.resetLeaf();
    else session.branch(plan.leafId);
  }
  // The state the restore left, so a later rewind counts these changes as gyre's own.
  if (repository !== undefined && undoEntryId !== undefined) await recordCheckpoint(repository, session, "turn_end");
  else if (options.restore !== "code") markConversationMove(session);
  await session.flush();
  return { ...plan, undoEntryId, restored: apply.map(({ path, status }) => ({ path, status })) };
}

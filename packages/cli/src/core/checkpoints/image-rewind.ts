/**
 * Rewind when git is missing: files come back from the pre- and post-images that write and edit
 * recorded (`file_images` entries), not from a snapshot. The state of a file before a user message
 * is, in this order: its first pre-image in that message's own run (what the file was right
 * before gyre touched it, on whichever /tree branch the message is); its last image on the way
 * from the root; its first pre-image further along that branch; its first pre-image anywhere.
 * Changes made by bash are not covered, and the plan says so.
 */
import { GyreError } from "@gyre/ai";
import type { SessionManager } from "../session/session-manager.js";
import type { FileImage, FileImagesEntry, SessionEntry } from "../session/types.js";
import type { FileImageStore } from "./file-images.js";
import { type EntryIndex, indexEntries, pathTo } from "./find-checkpoints.js";
import { markConversationMove, type RewindPlan, type RewindResult } from "./rewind.js";
import type { FileChange } from "./types.js";

export const BASH_NOT_COVERED =
  "git is not available, so files were restored from the copies write and edit saved; changes made by bash are not covered.";

export type ImageRewindOptions = {
  session: SessionManager;
  store: FileImageStore;
  entryId: string;
  restore: "both" | "code" | "conversation";
  force?: boolean;
};

type Planned = { plan: RewindPlan; images: Map<string, FileImage> };

const isImages = (entry: SessionEntry | undefined): entry is FileImagesEntry => entry?.type === "file_images";

/** Where the conversation continues and which point of the tree the files go back to. */
function resolvePoint(index: EntryIndex, entryId: string): string | null {
  const entry = index.byId.get(entryId);
  if (entry?.type === "file_images" || entry?.type === "checkpoint") return entry.id;
  if (entry?.type === "message" && entry.message.role === "user") return entry.parentId;
  throw new GyreError("usage", `Entry ${entryId} is not a user message or checkpoint of this session.`);
}

/** Each file's image at the end of `path` (its last one on the way there). */
function stateAlong(path: readonly SessionEntry[]): Map<string, FileImage> {
  const state = new Map<string, FileImage>();
  for (const entry of path) if (isImages(entry)) for (const file of entry.files) state.set(file.path, file);
  return state;
}

/** Each file's first pre-image among `entries` (in the order given). */
function firstImages(entries: readonly SessionEntry[]): Map<string, FileImage> {
  const first = new Map<string, FileImage>();
  for (const entry of entries)
    if (isImages(entry) && entry.phase === "before")
      for (const file of entry.files) if (!first.has(file.path)) first.set(file.path, file);
  return first;
}

/** The entries below `entryId` in file order; not past a user message when `withinTurn`. */
function descendants(index: EntryIndex, entryId: string, withinTurn: boolean): SessionEntry[] {
  const found: SessionEntry[] = [];
  const stack = [...(index.children.get(entryId) ?? [])];
  while (stack.length > 0) {
    const entry = stack.pop() as SessionEntry;
    if (withinTurn && entry.type === "message" && entry.message.role === "user") continue;
    found.push(entry);
    stack.push(...(index.children.get(entry.id) ?? []));
  }
  return found.sort((a, b) => (index.order.get(a.id) ?? 0) - (index.order.get(b.id) ?? 0));
}

/** Each file's state at the rewind target, from the most to the least direct evidence (see top). */
function stateAtTarget(
  index: EntryIndex,
  target: { entryId: string; point: string | null; leafId: string | null },
  anywhere: Map<string, FileImage>,
): (path: string) => FileImage | undefined {
  const entry = index.byId.get(target.entryId);
  // Only the run's own tools: a rewind made at the end of that run saved the files as it found them.
  const run = entry?.type === "message" ? descendants(index, target.entryId, true) : [];
  const own = firstImages(run.filter((item) => isImages(item) && item.reason === "tool"));
  const along = stateAlong(pathTo(index, target.point));
  const current = pathTo(index, target.leafId);
  const further = current.some((item) => item.id === target.entryId)
    ? current.slice(current.findIndex((item) => item.id === target.point) + 1)
    : [...(entry ? [entry] : []), ...descendants(index, target.entryId, false)];
  const later = firstImages(further);
  return (path) => own.get(path) ?? along.get(path) ?? later.get(path) ?? anywhere.get(path);
}

async function planImageRewind(options: ImageRewindOptions): Promise<Planned> {
  const entries = options.session.getEntries();
  const index = indexEntries(entries);
  const point = resolvePoint(index, options.entryId);
  const plan: RewindPlan = { checkpointId: undefined, leafId: point, changes: [], conflicts: [], skipped: [] };
  const images = new Map<string, FileImage>();
  if (options.restore === "conversation") return { plan, images };
  const first = firstImages(entries);
  const wanted = stateAtTarget(index, { entryId: options.entryId, point, leafId: options.session.leafId }, first);
  const left = stateAlong(pathTo(index, options.session.leafId));
  plan.notice = BASH_NOT_COVERED;
  for (const [path, before] of first) {
    const target = wanted(path) ?? before;
    const expected = left.get(path) ?? before;
    if (target.skipped) {
      plan.skipped.push({ path, bytes: 0, reason: "file_too_large" });
      continue;
    }
    if (target.blob !== null && !(await options.store.has(target.blob))) {
      plan.skipped.push({ path, bytes: 0, reason: "file_too_large" });
      continue;
    }
    const current = await options.store.currentBlob(path);
    if (current === target.blob) continue;
    const status: FileChange["status"] = target.blob === null ? "deleted" : current === null ? "added" : "modified";
    plan.changes.push({ path, status });
    images.set(path, target);
    if (!expected.skipped && current !== expected.blob) plan.conflicts.push(path);
  }
  plan.checkpointId = plan.changes.length > 0 ? options.entryId : undefined;
  return { plan, images };
}

/**
 * `/diff` without git: each file write or edit changed in this session, from the copy saved
 * before gyre first touched it to the file as it is now (`added`: new since then).
 */
export async function imageSessionChanges(session: SessionManager, store: FileImageStore): Promise<FileChange[]> {
  const changes: FileChange[] = [];
  for (const [path, before] of firstImages(session.getEntries())) {
    if (before.skipped) continue;
    const now = await store.currentBlob(path);
    if (now === before.blob || now === "skipped") continue;
    changes.push({ path, status: before.blob === null ? "added" : now === null ? "deleted" : "modified" });
  }
  return changes.sort((a, b) => a.path.localeCompare(b.path));
}

/** What an image rewind would do, changing nothing. */
export async function previewImageRewind(options: ImageRewindOptions): Promise<RewindPlan> {
  return (await planImageRewind(options)).plan;
}

/**
 * Rewinds from file images. The files it replaces are saved first (a "rewind" pre-image, durable
 * before anything changes: rewinding to it undoes this rewind), then restored, then the leaf moves.
 */
export async function rewindFromImages(options: ImageRewindOptions): Promise<RewindResult> {
  const { session, store } = options;
  const { plan, images } = await planImageRewind(options);
  const keep = new Set(options.force ? [] : plan.conflicts);
  const apply = plan.changes.filter((change) => !keep.has(change.path));
  let undoEntryId: string | undefined;
  if (apply.length > 0) {
    const saved = await Promise.all(apply.map((change) => store.capture(change.path)));
    undoEntryId = session.appendFileImages({
      phase: "before",
      reason: "rewind",
      workspace: store.workspace,
      files: saved,
    });
    await session.flush();
    for (const change of apply) await store.restore(images.get(change.path) as FileImage);
  }
  if (options.restore !== "code") {
    if (plan.leafId === null) session.resetLeaf();
    else session.branch(plan.leafId);
  }
  // Under the new leaf, like the git rewind's end checkpoint: the move survives a restart, and a
  // later rewind on this branch knows the files as the rewind left them.
  if (apply.length > 0) {
    const after = await Promise.all(apply.map((change) => store.capture(change.path)));
    session.appendFileImages({ phase: "after", reason: "rewind", workspace: store.workspace, files: after });
  } else if (options.restore !== "code") markConversationMove(session);
  await session.flush();
  return { ...plan, undoEntryId, restored: apply };
}

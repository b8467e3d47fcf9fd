/**
 * Reading checkpoints out of a session tree: which snapshot holds the files as they were before
 * a user message, and which changes since then gyre made itself (a run's "turn" → "turn_end",
 * a rewind → its "turn_end") rather than someone outside it.
 */
import type { CheckpointEntry, SessionEntry } from "../session/types.js";

/** The entries of a session in file order, with lookups by id and parent. */
export type EntryIndex = {
  order: Map<string, number>;
  byId: Map<string, SessionEntry>;
  children: Map<string | null, SessionEntry[]>;
};

export function indexEntries(entries: readonly SessionEntry[]): EntryIndex {
  const index: EntryIndex = { order: new Map(), byId: new Map(), children: new Map() };
  entries.forEach((entry, at) => {
    index.order.set(entry.id, at);
    index.byId.set(entry.id, entry);
    const siblings = index.children.get(entry.parentId) ?? [];
    siblings.push(entry);
    index.children.set(entry.parentId, siblings);
  });
  return index;
}

const isCheckpoint = (entry: SessionEntry | undefined): entry is CheckpointEntry => entry?.type === "checkpoint";
const isUserMessage = (entry: SessionEntry) => entry.type === "message" && entry.message.role === "user";

/** Entries from the root to `leafId`. */
export function pathTo(index: EntryIndex, leafId: string | null): SessionEntry[] {
  const path: SessionEntry[] = [];
  let current = leafId === null ? undefined : index.byId.get(leafId);
  while (current !== undefined) {
    path.push(current);
    current = current.parentId === null ? undefined : index.byId.get(current.parentId);
  }
  return path.reverse();
}

/** Earliest checkpoint (file order) under `entryId`, not going past user messages when `withinTurn`. */
function earliestBelow(index: EntryIndex, entryId: string, withinTurn: boolean): CheckpointEntry | undefined {
  let best: CheckpointEntry | undefined;
  const stack = [...(index.children.get(entryId) ?? [])];
  while (stack.length > 0) {
    const entry = stack.pop() as SessionEntry;
    if (withinTurn && isUserMessage(entry)) continue;
    if (
      isCheckpoint(entry) &&
      (best === undefined || (index.order.get(entry.id) ?? 0) < (index.order.get(best.id) ?? 0))
    )
      best = entry;
    stack.push(...(index.children.get(entry.id) ?? []));
  }
  return best;
}

/**
 * The checkpoint that holds the workspace as it was before user message `messageId`: the first
 * one its own run took; else the next one on the way to `leafId`; else, for a message on another
 * branch, the first in its subtree or the last before it. Undefined: gyre changed nothing since.
 */
export function checkpointBefore(
  index: EntryIndex,
  messageId: string,
  leafId: string | null,
): CheckpointEntry | undefined {
  const own = earliestBelow(index, messageId, true);
  if (own) return own;
  const path = pathTo(index, leafId);
  const at = path.findIndex((entry) => entry.id === messageId);
  if (at >= 0) return path.slice(at + 1).find(isCheckpoint);
  const later = earliestBelow(index, messageId, false);
  if (later) return later;
  return pathTo(index, messageId).filter(isCheckpoint).pop();
}

/**
 * Checkpoints on the current branch recorded after `target`, in file order: the states between
 * the target and now, for telling gyre's own changes from outside ones.
 */
export function checkpointsSince(index: EntryIndex, target: CheckpointEntry, leafId: string | null): CheckpointEntry[] {
  const after = index.order.get(target.id) ?? -1;
  return pathTo(index, leafId)
    .filter(isCheckpoint)
    .filter((entry) => (index.order.get(entry.id) ?? -1) > after);
}

/** Whether the change from `from` to `to` was gyre's own: a run or a rewind and its end. */
export function isOwnChange(from: CheckpointEntry, to: { reason: CheckpointEntry["reason"] }): boolean {
  return (from.reason === "turn" || from.reason === "rewind") && to.reason === "turn_end";
}

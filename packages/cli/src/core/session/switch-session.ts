import { dirname } from "node:path";
import type { AgentMessage } from "@gyre/agent";
import { SessionManager } from "./session-manager.js";
import { resolveSessionArgument } from "./session-store.js";
import type { SessionTreeNode } from "./session-tree.js";

/** A session's entries as a tree, with the current branch marked. */
export type SessionTreeView = {
  nodes: SessionTreeNode[];
  /** Ids of the entries on the current branch (root to leaf). */
  activePath: ReadonlySet<string>;
  leafId: string | null;
};

/** The sessions folder: `given`, or the one `store`'s file lives in; undefined in memory without one. */
export function sessionsDirOf(store: SessionManager, given: string | undefined): string | undefined {
  return given ?? (store.path === undefined ? undefined : dirname(dirname(store.path)));
}

/** A fresh store like `current`: in memory when `current` is (or no sessions folder is known), else a new file under `sessionsDir`. */
export function createSiblingStore(current: SessionManager, sessionsDir: string | undefined): SessionManager {
  return current.path === undefined || sessionsDir === undefined
    ? SessionManager.inMemory({ cwd: current.cwd })
    : SessionManager.create({
        ...current.seams,
        sessionsDir,
        cwd: current.cwd,
        ...(current.header.mode !== undefined && { mode: current.header.mode }),
      });
}

/**
 * Opens the session a path or an id prefix names, for writing. Throws a `CliError` when nothing
 * (or several sessions) match, the file cannot be read, or another gyre holds its lock.
 */
export async function openStore(options: {
  sessionsDir: string | undefined;
  /** The store open now: its folder resolves relative paths, its redactor and journals carry over. */
  current: SessionManager;
  pathOrId: string;
}): Promise<SessionManager> {
  const { sessionsDir = "", current, pathOrId } = options;
  const cwd = current.cwd;
  // Without a sessions folder only a path can name a session; an id prefix then matches nothing.
  const path = await resolveSessionArgument({ sessionsDir, cwd, value: pathOrId });
  return SessionManager.open(path, current.seams);
}

/** The tree of `store` for a picker. */
export function describeTree(store: SessionManager): SessionTreeView {
  return {
    nodes: store.getTree(),
    activePath: new Set(store.getBranch().map((entry) => entry.id)),
    leafId: store.leafId,
  };
}

/**
 * Moves `store`'s leaf to `entryId` (every entry stays in the file). A user message is reopened
 * for editing: the leaf moves to just before it and its text is returned.
 */
export function moveLeaf(store: SessionManager, entryId: string): { editText?: string } {
  const entry = store.getEntry(entryId);
  if (entry?.type !== "message" || entry.message.role !== "user") {
    store.branch(entryId);
    return {};
  }
  if (entry.parentId === null) store.resetLeaf();
  else store.branch(entry.parentId);
  return { editText: messageText(entry.message) };
}

/** The text of a user or custom message (images as a placeholder); "" for other roles. */
export function messageText(message: AgentMessage): string {
  if (message.role !== "user" && message.role !== "custom") return "";
  const content = message.content;
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : `[image ${part.mimeType}]`)).join("\n");
}

/** The ops that replace the session's store (docs/design/session.md): what to switch to and what to answer. */
export type StoreSwitchOp =
  | { type: "new" }
  | { type: "open"; session: string }
  | { type: "fork"; entryId?: string }
  | { type: "navigate"; entryId: string };

export type StoreSwitch = { store: SessionManager; closePrevious: boolean; answer: (store: SessionManager) => unknown };

/** Where a `new`, `open`, `fork` or `navigate` op takes the session; the session then switches to `store`. */
export async function storeSwitch(
  op: StoreSwitchOp,
  current: SessionManager,
  sessionsDir: string | undefined,
): Promise<StoreSwitch> {
  const located = (store: SessionManager) => ({ sessionId: store.id, sessionFile: store.path });
  switch (op.type) {
    case "new":
      return {
        store: createSiblingStore(current, sessionsDir),
        closePrevious: true,
        answer: (s) => ({ sessionId: s.id }),
      };
    case "open":
      return {
        store: await openStore({ sessionsDir, current, pathOrId: op.session }),
        closePrevious: true,
        answer: located,
      };
    case "fork":
      if (op.entryId) current.branch(op.entryId);
      return { store: await current.fork(), closePrevious: true, answer: located };
    case "navigate": {
      const moved = moveLeaf(current, op.entryId);
      return { store: current, closePrevious: false, answer: () => moved };
    }
  }
}

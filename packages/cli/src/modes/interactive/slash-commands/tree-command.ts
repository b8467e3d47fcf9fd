import { userMessageText } from "../chat-view.js";
import { toTreeItems } from "../pickers/tree-picker.js";
import type { SlashCommand } from "./types.js";

/**
 * /tree: jumps to an earlier entry and continues from there (every entry stays in the file). A
 * user message is reopened for editing: the conversation continues from just before it.
 */
export const treeCommand: SlashCommand = {
  name: "tree",
  description: "Jump to an earlier point of this session and continue from there",
  run: async (_args, context) => {
    const { session } = context;
    const store = session.session;
    const activePath = new Set(store.getBranch().map((entry) => entry.id));
    const items = toTreeItems(store.getTree(), activePath);
    if (items.length === 0) return context.notify("This session has no messages yet.");
    const id = await context.select("Session tree (● is the current branch)", items, store.leafId ?? undefined);
    if (!id) return;
    const entry = store.getEntry(id);
    if (entry?.type === "message" && entry.message.role === "user") {
      if (entry.parentId === null) store.resetLeaf();
      else store.branch(entry.parentId);
      context.setEditorText(userMessageText(entry.message));
    } else store.branch(id);
    await session.switchStore(store, { closePrevious: false });
    context.notify("Continuing from the chosen point; the other branch stays in the session.");
  },
};

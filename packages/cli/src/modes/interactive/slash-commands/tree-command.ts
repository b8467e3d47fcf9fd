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
    const tree = session.tree();
    const items = toTreeItems(tree.nodes, tree.activePath);
    if (items.length === 0) return context.notify("This session has no messages yet.");
    const id = await context.select("Session tree (● is the current branch)", items, tree.leafId ?? undefined);
    if (!id) return;
    const { editText } = await session.submit({ type: "navigate", entryId: id });
    if (editText !== undefined) context.setEditorText(editText);
    context.notify("Continuing from the chosen point; the other branch stays in the session.");
  },
};

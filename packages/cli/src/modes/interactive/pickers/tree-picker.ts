import type { AgentMessage } from "@gyre/agent";
import type { SelectItem } from "@mariozechner/pi-tui";
import type { SessionTreeNode } from "../../../core/session/session-tree.js";
import type { SessionEntry } from "../../../core/session/types.js";
import type { TaskToolDetails } from "../../../core/subagents/task-tool.js";
import { userMessageText } from "../chat-view.js";

const PREVIEW = 70;

function preview(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > PREVIEW ? `${line.slice(0, PREVIEW - 1)}…` : line;
}

/** A one-line description of an entry, or undefined for entries not worth jumping to. */
export function describeEntry(entry: SessionEntry): string | undefined {
  switch (entry.type) {
    case "message": {
      const message = entry.message;
      if (message.role === "user") return `› ${preview(userMessageText(message))}`;
      if (message.role === "assistant") {
        const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join(" ");
        const calls = message.content.filter((part) => part.type === "toolCall").length;
        return `  ${preview(text) || "(no text)"}${calls > 0 ? ` [${calls} tool call${calls > 1 ? "s" : ""}]` : ""}`;
      }
      return describeSubagentLink(message);
    }
    case "compaction":
      return "  [compaction]";
    case "branch_summary":
      return `  [branch summary] ${preview(entry.summary)}`;
    case "checkpoint":
      return entry.reason === "rewind" ? "  [rewind checkpoint]" : undefined;
    case "file_images":
      return entry.reason === "rewind" && entry.phase === "before" ? "  [rewind checkpoint]" : undefined;
    case "model_change":
    case "thinking_level_change":
    case "label":
    case "session_info":
    case "custom":
      return undefined;
    default: {
      const never: never = entry;
      throw new Error(`Unknown entry ${JSON.stringify(never)}`);
    }
  }
}

/** A task call's result links to the subagent's own session file: "↳ subagent explore (ended: stop) → file". */
function describeSubagentLink(message: AgentMessage): string | undefined {
  if (message.role !== "toolResult" || message.toolName !== "task") return undefined;
  const details = message.details as Partial<TaskToolDetails> | undefined;
  if (typeof details?.sessionFile !== "string") return undefined;
  return `  ↳ subagent ${details.agent ?? "?"} (${details.description ?? ""}, ended: ${details.reason ?? "?"}) → ${details.sessionFile}`;
}

/**
 * Flattens the session tree into picker rows, depth-first in file order, indenting where the
 * tree branches. The current leaf's path is marked so the user sees where they are.
 */
export function toTreeItems(roots: readonly SessionTreeNode[], activePath: ReadonlySet<string>): SelectItem[] {
  const items: SelectItem[] = [];
  const visit = (node: SessionTreeNode, depth: number) => {
    const text = describeEntry(node.entry);
    const nextDepth = node.children.length > 1 ? depth + 1 : depth;
    if (text !== undefined) {
      const marker = activePath.has(node.entry.id) ? "●" : "○";
      items.push({
        value: node.entry.id,
        label: `${"  ".repeat(depth)}${marker} ${text}${node.label ? ` [${node.label}]` : ""}`,
      });
    }
    for (const child of node.children) visit(child, nextDepth);
  };
  for (const root of roots) visit(root, 0);
  return items;
}

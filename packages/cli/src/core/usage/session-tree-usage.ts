/**
 * The usage of one session and of the subagents it started, as a tree: each node is a session
 * file (the main one, or a subagent's journal linked from a task result) with its own calls and
 * totals, and the totals of it and everything under it. `/usage` shows it.
 */
import { readSessionUsage } from "./read-session-usage.js";
import { UsageAggregator, type UsageCall, type UsageReport } from "./usage-report.js";

export type AgentUsageNode = {
  agent: string;
  path: string;
  /** This agent's own model calls, oldest first (a turn each). */
  calls: UsageCall[];
  /** This agent's own calls summed. */
  own: UsageReport["totals"];
  /** This agent's and all its subagents' calls summed. */
  tree: UsageReport["totals"];
  children: AgentUsageNode[];
};

/** Reads `path` and the journals it links, depth first; a journal that cannot be read is left out. */
export async function readSessionTreeUsage(path: string, depth = 0): Promise<AgentUsageNode> {
  const file = await readSessionUsage(path);
  const children: AgentUsageNode[] = [];
  // Depth is bounded so a journal that links back to an ancestor cannot loop.
  if (depth < 8)
    for (const child of file.subagentFiles) {
      const node = await readSessionTreeUsage(child, depth + 1).catch(() => undefined);
      if (node) children.push(node);
    }
  const own = new UsageAggregator();
  for (const call of file.calls) own.add(call);
  const tree = new UsageAggregator();
  const addAll = (node: { calls: UsageCall[]; children: AgentUsageNode[] }) => {
    for (const call of node.calls) tree.add(call);
    for (const child of node.children) addAll(child);
  };
  addAll({ calls: file.calls, children });
  return { agent: file.agent, path, calls: file.calls, own: own.report().totals, tree: tree.report().totals, children };
}

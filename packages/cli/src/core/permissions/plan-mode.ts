/**
 * What plan mode takes away from the model (docs/design/safety.md): the tools that change files or the world
 * are not offered at all, and the system prompt says it is planning. Bash stays, in a read-only
 * sandbox; MCP tools stay only when their server marks them read-only.
 */
import type { AnyAgentTool } from "@gyre/agent";
import type { SessionRestriction } from "../agent-session.js";
import { isReadOnlyMcpTool } from "../mcp/mcp-tool.js";

/** The built-in tools that change files; plan mode withholds them and the gate refuses them. */
export const PLAN_WITHHELD_TOOLS: ReadonlySet<string> = new Set(["write", "edit"]);

/** The system prompt note in plan mode. */
export const PLAN_MODE_NOTE =
  "You are in plan mode: investigate with the read-only tools and bash (its sandbox is read-only), then present a " +
  "step-by-step plan. Do not try to change files; write and edit are withheld until the user leaves plan mode.";

/** Whether plan mode withholds `tool`: write and edit, and MCP tools not marked read-only. */
export function isWithheldInPlanMode(tool: AnyAgentTool): boolean {
  if (PLAN_WITHHELD_TOOLS.has(tool.name)) return true;
  return tool.name.startsWith("mcp__") && !isReadOnlyMcpTool(tool);
}

/** The session restriction of plan mode. */
export const PLAN_MODE_RESTRICTION: SessionRestriction = {
  withhold: isWithheldInPlanMode,
  describeWithheld: (name) =>
    `\`${name}\` is unavailable in plan mode (it could change files or the world). Finish investigating and present your plan; the user leaves plan mode to let you carry it out.`,
  systemPromptNote: PLAN_MODE_NOTE,
};

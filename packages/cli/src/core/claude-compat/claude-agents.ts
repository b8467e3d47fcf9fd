import { dirname, resolve } from "node:path";
import type { AgentDefinition } from "../subagents/agent-definitions.js";
import { gyreToolName } from "./claude-compat.js";

/** Claude Code's model aliases: gyre cannot know which of the user's models they mean, so the parent's runs. */
const MODEL_ALIASES: ReadonlySet<string> = new Set(["inherit", "sonnet", "opus", "haiku"]);

/**
 * Definitions from `.claude/agents` in gyre's terms: Claude's tool names (`Read, Grep, Glob`)
 * become gyre's (`read`, `grep`, `find`), and a model alias (`sonnet`, `inherit`) means the
 * parent's model. Definitions from other folders are returned unchanged.
 */
export function adaptClaudeAgents(definitions: AgentDefinition[], claudeDirs: readonly string[]): AgentDefinition[] {
  if (claudeDirs.length === 0) return definitions;
  const dirs = new Set(claudeDirs.map((dir) => resolve(dir)));
  return definitions.map((definition) => {
    if (!dirs.has(resolve(dirname(definition.source)))) return definition;
    const { model, tools, ...rest } = definition;
    return {
      ...rest,
      ...(tools ? { tools: [...new Set(tools.map((tool) => gyreToolName(tool) ?? tool))] } : {}),
      ...(model && !MODEL_ALIASES.has(model) ? { model } : {}),
    };
  });
}

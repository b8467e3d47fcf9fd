import { expandPromptTemplate, type PromptTemplate, splitArguments } from "../prompt-templates/prompt-templates.js";
import { expandSkill, type Skill } from "../skills/load-skills.js";
import type { ExtensionRunner } from "./extension-runner.js";

/**
 * What a line of user input turned into: text for the model, or a command that already ran. A
 * template's prompt carries the template when its front-matter asks for tools or a model.
 */
export type InputResolution = { kind: "prompt"; text: string; template?: PromptTemplate } | { kind: "handled" };

export type InputResolverOptions = {
  extensions?: ExtensionRunner;
  templates: readonly PromptTemplate[];
  skills: readonly Skill[];
  /** Expands `/mcp__<server>__<prompt> args` (MCP prompts); undefined when the name is no prompt. */
  expandMcpPrompt?: (name: string, rest: string) => Promise<string | undefined>;
  /** Runs a Claude Code command's `!`cmd`` and adds its `@path` files (docs/claude-compat.md); without it the body stays as written. */
  expandClaudeCommand?: (template: PromptTemplate, text: string) => Promise<string>;
};

/**
 * Resolves slash input the same way in every mode: `/skill:name args` inlines the skill,
 * `/name args` runs an extension command (which wins) or expands a prompt template. Anything
 * else, including an unknown `/name`, goes to the model unchanged.
 */
export function createInputResolver(options: InputResolverOptions): (text: string) => Promise<InputResolution> {
  return async (text) => {
    const match = /^\/([A-Za-z0-9][\w:.-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
    if (!match?.[1]) return { kind: "prompt", text };
    const name = match[1];
    const rest = (match[2] ?? "").trim();
    if (name.startsWith("skill:")) {
      const skill = options.skills.find((candidate) => candidate.name === name.slice("skill:".length));
      return skill ? { kind: "prompt", text: await expandSkill(skill, rest) } : { kind: "prompt", text };
    }
    if (options.extensions?.getCommands().has(name)) {
      await options.extensions.runCommand(name, rest);
      return { kind: "handled" };
    }
    if (name.startsWith("mcp__") && options.expandMcpPrompt) {
      const expanded = await options.expandMcpPrompt(name, rest);
      if (expanded !== undefined) return { kind: "prompt", text: expanded };
    }
    const template = options.templates.find((candidate) => candidate.name === name);
    if (template) {
      const expanded = expandPromptTemplate(template.content, splitArguments(rest)).trim();
      if (template.claudeScope && options.expandClaudeCommand)
        return { kind: "prompt", text: await options.expandClaudeCommand(template, expanded), template };
      if (!template.allowedTools && !template.model) return { kind: "prompt", text: expanded };
      return { kind: "prompt", text: expanded, template };
    }
    return { kind: "prompt", text };
  };
}

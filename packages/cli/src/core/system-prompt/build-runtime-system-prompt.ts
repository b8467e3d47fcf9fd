import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { AnyAgentTool } from "@gyre/agent";
import type { ExtensionRunner } from "../extensions/extension-runner.js";
import type { ProjectInfo } from "../inspect-project.js";
import type { RuntimeConfig } from "../runtime-config.js";
import { formatSkillsSection, type Skill } from "../skills/load-skills.js";
import { buildSystemPrompt } from "./build-system-prompt.js";

/**
 * The system prompt of a run: the tools (an extension tool by its description's first line), the
 * usable context files, skills (only with read), extension additions, and the project's
 * `.gyre/SYSTEM.md` and `APPEND_SYSTEM.md` when the project is trusted, under the flags' own.
 */
export async function buildRuntimeSystemPrompt(options: {
  config: Pick<RuntimeConfig, "systemPrompt" | "appendSystemPrompt">;
  project: ProjectInfo;
  tools: readonly AnyAgentTool[];
  extensionTools: readonly AnyAgentTool[];
  skills: readonly Skill[];
  extensions: ExtensionRunner | undefined;
}): Promise<string> {
  const { config, project, tools, extensions } = options;
  const { cwd, trusted } = project;
  const extensionToolNames = new Set(options.extensionTools.map((tool) => tool.name));
  const systemFile = trusted ? await readOptional(join(cwd, ".gyre", "SYSTEM.md")) : undefined;
  const appendFile = trusted ? await readOptional(join(cwd, ".gyre", "APPEND_SYSTEM.md")) : undefined;
  const customPrompt = config.systemPrompt ?? systemFile;
  return buildSystemPrompt({
    cwd,
    // Extension tools have no built-in line, so their own description's first line stands in.
    toolNames: tools.map((tool) =>
      extensionToolNames.has(tool.name) ? `${tool.name}: ${tool.description.split("\n")[0]}` : tool.name,
    ),
    contextFiles: project.contextFiles,
    extraSections: [
      tools.some((tool) => tool.name === "read") ? formatSkillsSection(options.skills) : "",
      ...(extensions?.getSystemPromptAdditions() ?? []),
    ],
    ...(customPrompt !== undefined ? { customPrompt } : {}),
    appendPrompts: [appendFile ?? "", config.appendSystemPrompt ?? ""],
  });
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

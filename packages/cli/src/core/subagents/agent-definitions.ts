/**
 * Subagent definitions (docs/design/delegation.md): Markdown files with front-matter (`name`, `description`,
 * `tools`, `model`, `thinking`) whose body is the subagent's system prompt, from
 * `$GYRE_HOME/agents/` and, in a trusted project, `.gyre/agents/` (the project's override the
 * user's of the same name). Two built-ins: `general` and `explore` (read-only tools).
 */
import { readdir, readFile, stat } from "node:fs/promises";
import * as nodePath from "node:path";
import type { ThinkingLevel } from "@gyre/ai";
import { parseFrontmatter } from "../skills/parse-frontmatter.js";

export type AgentDefinition = {
  name: string;
  description: string;
  /** Tool names the subagent may use; undefined: the parent's tools. */
  tools?: string[];
  /** A model id (or `provider/model`); undefined: the parent's model. */
  model?: string;
  thinking?: ThinkingLevel;
  systemPrompt: string;
  /** Where it was defined: "built-in" or the file's path. */
  source: string;
};

export const READ_ONLY_TOOLS = ["read", "ls", "grep", "find"] as const;

export const BUILT_IN_AGENTS: readonly AgentDefinition[] = [
  {
    name: "general",
    description:
      "A general-purpose agent for a self-contained part of the task: research, code changes, running commands.",
    systemPrompt:
      "You are a subagent working on one part of a larger task for another agent. Do the task you are given with the tools you have, " +
      "then answer with a concise report of what you found or changed (files, commands, results). Your final answer is all the other agent sees.",
    source: "built-in",
  },
  {
    name: "explore",
    description: "A read-only agent that searches and reads the codebase to answer a question; it changes nothing.",
    tools: [...READ_ONLY_TOOLS],
    systemPrompt:
      "You are a read-only exploration subagent. Search and read the code to answer the question you are given; you cannot change files " +
      "or run commands. Answer with the facts the other agent needs: file paths with line numbers, names, and short quotes.",
    source: "built-in",
  },
];

const MAX_DEFINITION_BYTES = 256 * 1024;
// MERGE: replace with @gyre/ai's isThinkingLevel once the contracts branch lands.
const isThinkingLevel = (value: string): value is ThinkingLevel => ["off", "low", "medium", "high"].includes(value);

/** A definition file that could not be used, with the reason. */
export type DefinitionProblem = { path: string; message: string };

/**
 * Loads the definitions from `dirs` in order (later ones override earlier ones of the same name,
 * and every file overrides a built-in). Missing folders are fine; a bad file is reported and skipped.
 */
export async function loadAgentDefinitions(
  dirs: readonly string[],
): Promise<{ definitions: AgentDefinition[]; problems: DefinitionProblem[] }> {
  const byName = new Map(BUILT_IN_AGENTS.map((definition) => [definition.name, definition]));
  const problems: DefinitionProblem[] = [];
  for (const dir of dirs) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((entry) => entry.endsWith(".md")).sort()) {
      const path = nodePath.join(dir, name);
      const loaded = await loadDefinition(path).catch((error: unknown) => ({ message: (error as Error).message }));
      if ("message" in loaded) problems.push({ path, message: loaded.message });
      else byName.set(loaded.name, loaded);
    }
  }
  return { definitions: [...byName.values()], problems };
}

async function loadDefinition(path: string): Promise<AgentDefinition | { message: string }> {
  const info = await stat(path);
  if (!info.isFile()) return { message: "not a regular file" };
  if (info.size > MAX_DEFINITION_BYTES) return { message: `larger than ${MAX_DEFINITION_BYTES / 1024} KB` };
  const { fields, body } = await parseFrontmatter(await readFile(path, "utf8"));
  const name = fields.name ?? nodePath.basename(path, ".md");
  if (!/^[a-z0-9][a-z0-9_-]*$/i.test(name)) return { message: `name "${name}" must be letters, digits, "-" or "_"` };
  if (!fields.description) return { message: "front-matter has no description (the parent model picks agents by it)" };
  if (fields.thinking !== undefined && !isThinkingLevel(fields.thinking)) {
    return { message: `thinking "${fields.thinking}" is not one of off, low, medium, high` };
  }
  const tools = fields.tools
    ?.split(/[,\s]+/)
    .map((tool) => tool.trim())
    .filter((tool) => tool !== "");
  return {
    name,
    description: fields.description,
    ...(tools === undefined ? {} : { tools }),
    ...(fields.model ? { model: fields.model } : {}),
    ...(fields.thinking !== undefined ? { thinking: fields.thinking as ThinkingLevel } : {}),
    systemPrompt: body.trim() || BUILT_IN_AGENTS[0]?.systemPrompt || "",
    source: path,
  };
}

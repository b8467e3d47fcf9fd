import {
  BACKGROUND_SHELL_TOOL_DESCRIPTIONS,
  CODING_TOOL_DESCRIPTIONS,
  HARNESS_TOOL_DESCRIPTIONS,
  isCodingToolName,
  isHarnessToolName,
} from "../tools/tool-names.js";
import type { ContextFile } from "./context-files.js";

/** A built-in tool's line, or the given text (an extension tool's `name: first line`). */
function toolLine(name: string): string {
  if (isCodingToolName(name)) return `${name}: ${CODING_TOOL_DESCRIPTIONS[name]}`;
  const shellTool = BACKGROUND_SHELL_TOOL_DESCRIPTIONS[name];
  if (shellTool !== undefined) return `${name}: ${shellTool}`;
  return isHarnessToolName(name) ? `${name}: ${HARNESS_TOOL_DESCRIPTIONS[name]}` : name;
}

export type SystemPromptOptions = {
  cwd: string;
  toolNames: string[];
  contextFiles: ContextFile[];
  /** Replaces the default prompt (from --system-prompt or .gyre/SYSTEM.md). */
  customPrompt?: string;
  /** Appended after everything else (from --append-system-prompt or .gyre/APPEND_SYSTEM.md). */
  appendPrompts?: string[];
  /** Extra sections (skills, extensions). */
  extraSections?: string[];
  date?: Date;
};

/**
 * The system prompt: a short default describing the tools and working rules (or the custom
 * prompt), then the project's context files, extra sections, appended text, then date and cwd.
 */
export function buildSystemPrompt(options: SystemPromptOptions): string {
  const parts: string[] = [];
  if (options.customPrompt !== undefined) {
    parts.push(options.customPrompt.trim());
  } else {
    const tools = options.toolNames.map((name) => `- ${toolLine(name)}`).join("\n");
    parts.push(
      [
        "You are gyre, a coding agent working in the user's project through tools.",
        options.toolNames.length > 0
          ? `Tools:\n${tools}`
          : "You have no tools in this session; answer from what you know.",
        "Rules:",
        "- Read files before you edit them; make small, exact edits.",
        "- Prefer the dedicated file tools over shell commands for reading and editing.",
        "- Run the project's tests or checks after changes when you can.",
        "- Be concise. Show file paths clearly. Do not invent results you did not see.",
      ].join("\n"),
    );
  }
  if (options.contextFiles.length > 0) {
    const files = options.contextFiles.map((file) => `## ${file.path}\n\n${file.content.trim()}`).join("\n\n");
    parts.push(`# Project context\n\nInstructions from context files, general first, most specific last:\n\n${files}`);
  }
  for (const section of options.extraSections ?? []) if (section.trim()) parts.push(section.trim());
  for (const extra of options.appendPrompts ?? []) if (extra.trim()) parts.push(extra.trim());
  const date = (options.date ?? new Date()).toISOString().slice(0, 10);
  parts.push(`Current date: ${date}\nCurrent working directory: ${options.cwd}`);
  return parts.join("\n\n");
}

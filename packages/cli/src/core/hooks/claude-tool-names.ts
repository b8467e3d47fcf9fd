import { isAbsolute, resolve } from "node:path";

/** gyre's built-in tools under the names Claude Code gives them (docs/hooks.md); others keep their own. */
const CLAUDE_NAMES: Readonly<Record<string, string>> = {
  bash: "Bash",
  bash_output: "BashOutput",
  kill_shell: "KillShell",
  read: "Read",
  write: "Write",
  edit: "Edit",
  grep: "Grep",
  find: "Glob",
  ls: "LS",
  web_fetch: "WebFetch",
  task: "Task",
  todo: "TodoWrite",
};

const FILE_TOOLS: ReadonlySet<string> = new Set(["read", "write", "edit"]);

/** The name hooks see and matchers test: Claude Code's for built-ins, `mcp__server__tool` and extension tools unchanged. */
export function claudeToolName(toolName: string): string {
  return CLAUDE_NAMES[toolName] ?? toolName;
}

/**
 * `tool_input` for a hook: gyre's arguments plus the fields Claude Code's hooks read — an
 * absolute `file_path` for the file tools, `old_string`/`new_string` for a one-change edit.
 */
export function claudeToolInput(toolName: string, args: Record<string, unknown>, cwd: string): Record<string, unknown> {
  const input: Record<string, unknown> = { ...args };
  if (FILE_TOOLS.has(toolName) && typeof args.path === "string")
    input.file_path = isAbsolute(args.path) ? args.path : resolve(cwd, args.path);
  if (toolName === "edit" && Array.isArray(args.edits) && args.edits.length === 1) {
    const [only] = args.edits as { oldText?: unknown; newText?: unknown }[];
    input.old_string = only?.oldText;
    input.new_string = only?.newText;
  }
  return input;
}

/**
 * Arguments for the tool from a hook's `updatedInput`: its fields over the original arguments,
 * Claude Code's names mapped back onto gyre's (`file_path` → `path`, `old_string`/`new_string` →
 * one edit). The agent validates the result against the tool's schema before it runs.
 */
export function gyreToolArgs(
  toolName: string,
  original: Record<string, unknown>,
  updated: Record<string, unknown>,
): Record<string, unknown> {
  const { file_path, old_string, new_string, replace_all: _replaceAll, ...rest } = updated;
  const args: Record<string, unknown> = { ...original, ...rest };
  if (FILE_TOOLS.has(toolName) && typeof file_path === "string") args.path = file_path;
  if (toolName === "edit" && typeof old_string === "string" && typeof new_string === "string")
    args.edits = [{ oldText: old_string, newText: new_string }];
  return args;
}

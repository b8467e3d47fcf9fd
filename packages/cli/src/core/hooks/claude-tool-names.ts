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

/**
 * The name hooks see: Claude Code's for built-ins, `mcp__server__tool` and extension tools
 * unchanged. An edit with more than one change is Claude's `MultiEdit` when `args` are given.
 */
export function claudeToolName(toolName: string, args?: Record<string, unknown>): string {
  if (toolName === "edit" && args && isMultiEdit(args)) return "MultiEdit";
  return CLAUDE_NAMES[toolName] ?? toolName;
}

/**
 * The names a matcher is tested against (docs/hooks.md#matchers): the hook's `tool_name`, and for
 * a `MultiEdit` also `Edit`, so `Edit|Write` still sees every change to a file.
 */
export function hookMatchTargets(toolName: string, args: Record<string, unknown>): string[] {
  const name = claudeToolName(toolName, args);
  return name === "MultiEdit" ? [name, "Edit"] : [name];
}

const isMultiEdit = (args: Record<string, unknown>) => Array.isArray(args.edits) && args.edits.length > 1;

/**
 * `tool_input` for a hook: gyre's arguments plus the fields Claude Code's hooks read — an
 * absolute `file_path` for the file tools, `old_string`/`new_string` for a one-change edit, and
 * for several changes (a `MultiEdit`) the same two beside each change's `oldText`/`newText`.
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
  if (toolName === "edit" && isMultiEdit(args))
    input.edits = (args.edits as Record<string, unknown>[]).map((change) => ({
      ...change,
      old_string: change.oldText,
      new_string: change.newText,
    }));
  return input;
}

/**
 * Arguments for the tool from a hook's `updatedInput`: its fields over the original arguments,
 * Claude Code's names mapped back onto gyre's (`file_path` → `path`, `old_string`/`new_string` →
 * one edit, a MultiEdit's `edits[].old_string`/`new_string` → each change's `oldText`/`newText`).
 * The agent validates the result against the tool's schema before it runs.
 */
export function gyreToolArgs(
  toolName: string,
  original: Record<string, unknown>,
  updated: Record<string, unknown>,
): Record<string, unknown> {
  const { file_path, old_string, new_string, replace_all: _replaceAll, ...rest } = updated;
  const args: Record<string, unknown> = { ...original, ...rest };
  if (FILE_TOOLS.has(toolName) && typeof file_path === "string") args.path = file_path;
  if (toolName === "edit" && Array.isArray(rest.edits)) args.edits = rest.edits.map(gyreChange);
  if (toolName === "edit" && typeof old_string === "string" && typeof new_string === "string")
    args.edits = [{ oldText: old_string, newText: new_string }];
  return args;
}

function gyreChange(change: unknown): unknown {
  if (!change || typeof change !== "object") return change;
  const { old_string, new_string, replace_all: _replaceAll, ...rest } = change as Record<string, unknown>;
  return {
    ...rest,
    ...(typeof old_string === "string" ? { oldText: old_string } : {}),
    ...(typeof new_string === "string" ? { newText: new_string } : {}),
  };
}

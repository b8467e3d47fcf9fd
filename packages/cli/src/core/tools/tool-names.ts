/** The one list of gyre's built-in coding tools: flags, settings, the tool factory and the system prompt read it. */
export const CODING_TOOL_NAMES = ["read", "write", "edit", "bash", "ls", "grep", "find"] as const;

/** Names of the built-in coding tools. */
export type CodingToolName = (typeof CODING_TOOL_NAMES)[number];

/** The coding tools enabled when the user names none (docs/design/layers.md); `DEFAULT_HARNESS_TOOL_NAMES` join them. */
export const DEFAULT_TOOL_NAMES: readonly CodingToolName[] = ["read", "write", "edit", "bash"];

/** One line per tool for the default system prompt. */
export const CODING_TOOL_DESCRIPTIONS: Readonly<Record<CodingToolName, string>> = {
  read: "read a file (text with offset/limit, or an image)",
  write: "create or overwrite a file",
  edit: "replace exact text in a file (each oldText must match once)",
  bash: "run a shell command in the workspace",
  ls: "list a directory",
  grep: "search file contents (ripgrep, respects .gitignore)",
  find: "find files by glob (respects .gitignore)",
};

/** The tools that come with `bash` (its background shells), one line each for the system prompt; `--tools` does not name them. */
export const BACKGROUND_SHELL_TOOL_DESCRIPTIONS: Readonly<Record<string, string>> = {
  bash_output: "read what a background shell (bash run_in_background) printed since the last read, and its state",
  kill_shell: "stop a background shell and every process it started",
};

/** Built-in tools of the harness itself: the todo list, subagents, and fetching a URL. */
export const HARNESS_TOOL_NAMES = ["todo", "task", "web_fetch"] as const;

export type HarnessToolName = (typeof HARNESS_TOOL_NAMES)[number];

/** The harness tools on when the user names none: the todo list and subagents (`web_fetch` stays opt-in). */
export const DEFAULT_HARNESS_TOOL_NAMES: readonly HarnessToolName[] = ["todo", "task"];

/** Every built-in tool name `--tools` and the `tools` setting accept. */
export const BUILT_IN_TOOL_NAMES = [...CODING_TOOL_NAMES, ...HARNESS_TOOL_NAMES] as const;

export type BuiltInToolName = CodingToolName | HarnessToolName;

export const HARNESS_TOOL_DESCRIPTIONS: Readonly<Record<HarnessToolName, string>> = {
  todo: "keep a task list for multi-step work (write the whole list each time)",
  task: "hand a self-contained task to a subagent (several run in parallel)",
  web_fetch: "fetch a web page or text document by URL",
};

/** Whether `name` is a built-in tool, coding or harness. */
export function isBuiltInToolName(name: string): name is BuiltInToolName {
  return (BUILT_IN_TOOL_NAMES as readonly string[]).includes(name);
}

/** Whether `name` is a harness tool. */
export function isHarnessToolName(name: string): name is HarnessToolName {
  return (HARNESS_TOOL_NAMES as readonly string[]).includes(name);
}

/** Whether `name` is a built-in coding tool. */
export function isCodingToolName(name: string): name is CodingToolName {
  return (CODING_TOOL_NAMES as readonly string[]).includes(name);
}

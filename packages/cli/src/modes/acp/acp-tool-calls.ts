/**
 * gyre's tool calls as ACP `tool_call` / `tool_call_update`s (docs/acp.md): a kind and a title
 * per tool, the file it touches as a location, a diff of the whole file for write and edit (read
 * before the call and after it), and bash's output as text content while it runs and at the end.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { ToolCall, ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";

/** Bigger files get no diff (the editor shows the location instead). */
const MAX_DIFF_BYTES = 1_000_000;
/** Tool output shown in the editor, at most (the model got gyre's own bounded result). */
const MAX_TEXT = 20_000;

const kinds: Record<string, ToolKind> = {
  read: "read",
  write: "edit",
  edit: "edit",
  bash: "execute",
  bash_output: "read",
  kill_shell: "execute",
  diagnostics: "read",
  grep: "search",
  find: "search",
  ls: "search",
  web_fetch: "fetch",
  todo: "think",
  task: "other",
};

export function toolKind(toolName: string): ToolKind {
  return kinds[toolName] ?? "other";
}

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

/** A one-line title: what the call does, as an editor lists it. */
export function toolTitle(toolName: string, args: Record<string, unknown>): string {
  const path = text(args.path);
  switch (toolName) {
    case "read":
      return `Read ${path ?? "a file"}`;
    case "write":
      return `Write ${path ?? "a file"}`;
    case "edit":
      return `Edit ${path ?? "a file"}`;
    case "bash":
      return `Run \`${oneLine(text(args.command) ?? "")}\`${args.run_in_background === true ? " in the background" : ""}`;
    case "bash_output":
      return `Read background shell ${text(args.id) ?? ""}`.trimEnd();
    case "kill_shell":
      return `Stop background shell ${text(args.id) ?? ""}`.trimEnd();
    case "diagnostics":
      return `Diagnostics of ${path ?? "the workspace"}`;
    case "grep":
      return `Search for \`${oneLine(text(args.pattern) ?? "")}\`${path ? ` in ${path}` : ""}`;
    case "find":
      return `Find \`${oneLine(text(args.pattern) ?? "")}\`${path ? ` in ${path}` : ""}`;
    case "ls":
      return `List ${path ?? "."}`;
    case "web_fetch":
      return `Fetch ${text(args.url) ?? "a page"}`;
    case "todo":
      return "Update the todo list";
    case "task":
      return `Delegate: ${oneLine(text(args.description) ?? text(args.prompt) ?? "a task")}`;
    default:
      return toolName.startsWith("mcp__") ? toolName.split("__").slice(1).join(": ") : toolName;
  }
}

function oneLine(value: string): string {
  const line = value.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** The absolute path a call's `path` argument names, if it has one. */
export function toolPath(args: Record<string, unknown>, cwd: string): string | undefined {
  const path = text(args.path);
  if (!path) return undefined;
  return isAbsolute(path) ? path : resolve(cwd, path);
}

export function toolLocations(args: Record<string, unknown>, cwd: string): ToolCallLocation[] {
  const path = toolPath(args, cwd);
  if (!path) return [];
  const line = typeof args.offset === "number" ? args.offset : undefined;
  return [{ path, ...(line !== undefined ? { line } : {}) }];
}

/** The whole file now (`null`: it does not exist; `undefined`: unreadable or too big for a diff). */
export function fileSnapshot(path: string): string | null | undefined {
  try {
    const data = readFileSync(path);
    return data.length > MAX_DIFF_BYTES ? undefined : data.toString("utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
}

/** What a new call looks like to the editor. */
export function startedToolCall(
  toolCallId: string,
  toolName: string,
  args: Record<string, unknown>,
  cwd: string,
): ToolCall {
  return {
    toolCallId,
    title: toolTitle(toolName, args),
    kind: toolKind(toolName),
    // Running as far as the editor knows; a call that needs approval is asked about as pending.
    status: "in_progress",
    locations: toolLocations(args, cwd),
    rawInput: args,
  };
}

/** Text blocks of a tool result (images are left out), bounded. */
export function resultText(result: { content?: readonly { type: string; text?: string }[] } | undefined): string {
  const joined = (result?.content ?? [])
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text)
    .join("\n");
  return joined.length > MAX_TEXT ? `…${joined.slice(-MAX_TEXT)}` : joined;
}

export function textContent(value: string): ToolCallContent[] {
  return value ? [{ type: "content", content: { type: "text", text: value } }] : [];
}

/** A diff of the whole file, when both sides could be read and something changed. */
export function diffContent(path: string, before: string | null | undefined): ToolCallContent[] {
  if (before === undefined) return [];
  const after = fileSnapshot(path);
  if (after === undefined || after === null || after === before) return [];
  return [{ type: "diff", path, oldText: before, newText: after }];
}

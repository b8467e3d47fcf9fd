/**
 * What a Claude Code command's body does before its prompt is sent (docs/claude-compat.md):
 * each `!`cmd`` runs, through the approval gate and the bash sandbox, and its output takes its
 * place; each `@path` of a file in the workspace has the file's contents added after the text.
 * Nothing here fails the prompt: a command refused, failing or timing out, or a file outside the
 * workspace, leaves one line saying so, and the prompt is sent.
 */
import type { ReadDenyFilter } from "../permissions/read-deny.js";
import type { PathPolicy } from "../tools/path-policy.js";
import type { ToolFileSystem } from "../tools/tool-fs.js";
import { DEFAULT_MAX_BYTES } from "../tools/truncate.js";
import { describeShellEnd, type UserShell } from "../user-shell.js";
import { findAtReferences } from "./claude-imports.js";

/** What expanding a body may do: check and run commands, and read files inside the workspace. */
export type CommandBodyIo = {
  /** Undefined when `command` may run (allowed-tools, an allow rule or the user's yes), else why not. */
  check(command: string, signal: AbortSignal): Promise<string | undefined>;
  /** The bash tool's sandboxed runner, with its timeout (the process group is ended at it). */
  shell: UserShell;
  policy: PathPolicy;
  fs: Pick<ToolFileSystem, "readFile">;
  readDenied(): Promise<ReadDenyFilter | undefined>;
};

/** `!` then a code span: Claude Code's bash line. */
const BASH = /!`([^`\n]+)`/g;

/** `text` with its `!`cmd`` replaced by their output and the files of its `@path` appended. */
export async function expandCommandBody(text: string, io: CommandBodyIo, signal: AbortSignal): Promise<string> {
  // Both found in the body as written: a command's output or a file's text is never expanded in turn.
  const references = findAtReferences(text);
  let expanded = "";
  let last = 0;
  for (const match of text.matchAll(BASH)) {
    const command = (match[1] ?? "").trim();
    expanded += text.slice(last, match.index) + (await runLine(command, io, signal));
    last = (match.index ?? 0) + match[0].length;
  }
  expanded += text.slice(last);
  const files: string[] = [];
  const included = new Set<string>();
  for (const reference of references) {
    const section = await includeFile(reference.path, io, included);
    if (section) files.push(section);
  }
  return files.length === 0 ? expanded : `${expanded.trimEnd()}\n\n${files.join("\n\n")}`;
}

async function runLine(command: string, io: CommandBodyIo, signal: AbortSignal): Promise<string> {
  const refused = await io.check(command, signal);
  if (refused) return `[!\`${command}\` was not run: ${refused}]`;
  const result = await io.shell(command, { signal });
  // The bash tool's placeholder for silence is for a tool result; in a sentence, silence is nothing.
  const output = result.output === "(no output)" ? "" : result.output.replace(/\n+$/, "");
  if (!result.notRun && result.exitCode === 0) return output;
  const end = result.notRun ? "could not run" : `failed (${describeShellEnd(result)})`;
  return `[!\`${command}\` ${end}]${output ? `\n${output}` : ""}`;
}

/** The file's section, an error line when it is refused, or undefined when `@path` names no file (then it is plain text). */
async function includeFile(path: string, io: CommandBodyIo, included: Set<string>): Promise<string | undefined> {
  let resolved: Awaited<ReturnType<PathPolicy["resolve"]>>;
  try {
    resolved = await io.policy.resolve(path);
  } catch (error) {
    return `[@${path} was not included: ${(error as Error).message}]`;
  }
  if (!resolved.exists || included.has(resolved.realPath)) return undefined;
  if ((await io.readDenied())?.(resolved.realPath))
    return `[@${path} was not included: a read() deny rule covers ${resolved.displayPath}]`;
  const bytes = await io.fs.readFile(resolved.realPath).catch(() => undefined);
  // A folder or an unreadable file: the `@` stays plain text.
  if (bytes === undefined) return undefined;
  included.add(resolved.realPath);
  const cut = bytes.length > DEFAULT_MAX_BYTES;
  const content = Buffer.from(bytes.subarray(0, DEFAULT_MAX_BYTES)).toString("utf8");
  const fence = "`".repeat(Math.max(3, ...[...content.matchAll(/`+/g)].map((run) => run[0].length + 1)));
  const note = cut ? `\n[only the first ${DEFAULT_MAX_BYTES} of ${bytes.length} bytes]` : "";
  return `Contents of ${resolved.displayPath} (@${path}):\n${fence}\n${content.replace(/\n$/, "")}\n${fence}${note}`;
}

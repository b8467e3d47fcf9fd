/**
 * Context files in folders below the workspace root (docs/claude-compat.md): start-up reads the
 * folders from the filesystem root down to `cwd`; a file deeper down counts once the agent works
 * there. When read, edit or write touches a file under a folder whose `AGENTS.md` (with
 * `--claude-compat` also its `CLAUDE.md` and `.claude/CLAUDE.md`, with their `@path` imports) is
 * not yet in context, that file's text is added to the tool's result, once per session.
 */
import { dirname, join, relative, resolve, sep } from "node:path";
import type { AnyAgentTool } from "@gyre/agent";
import { importedContextFiles } from "../claude-compat/claude-imports.js";
import { type ContextFile, readContextFile } from "./context-files.js";

/** The tools whose `path` argument names a file the agent works on. */
const FILE_TOOLS: ReadonlySet<string> = new Set(["read", "edit", "write"]);

export type NestedContextOptions = {
  /** The workspace root: only folders strictly below it are looked at (start-up read the rest). */
  cwd: string;
  /**
   * Whether the project's files count (an untrusted folder's never reach the model), and the
   * context files in the system prompt now (`/reload` may replace them), which are never added again.
   */
  project: { trusted: boolean; contextFiles: readonly ContextFile[] };
  /** Set when a Claude Code setup is read (`--claude-compat`): the `~` of an `@~/…` import. */
  claudeHome: string | undefined;
};

/**
 * `tools` with read, edit and write adding the context files of the folders they touch, each
 * once (the same list, unchanged, for an untrusted folder). A failing call adds nothing.
 */
export function withNestedContext(tools: AnyAgentTool[], options: NestedContextOptions): AnyAgentTool[] {
  if (!options.project.trusted) return tools;
  const claimed = new Set<string>();
  return tools.map((tool): AnyAgentTool => {
    if (!FILE_TOOLS.has(tool.name)) return tool;
    return {
      ...tool,
      execute: async (args, context) => {
        const result = await tool.execute(args, context);
        const path = (args as { path?: unknown }).path;
        if (typeof path !== "string") return result;
        const files = await nestedContextFiles(resolve(options.cwd, path), options, claimed);
        if (files.length === 0) return result;
        const notes = files.map((file) => ({ type: "text" as const, text: describeNested(file, options.cwd) }));
        return { ...result, content: [...result.content, ...notes] };
      },
    };
  });
}

function describeNested(file: ContextFile, cwd: string): string {
  const shown = relative(cwd, file.path);
  return `\n\nInstructions from ${shown}, for the files under ${relative(cwd, dirname(file.path)) || "."} (added once, as this call works there; follow them as you follow AGENTS.md):\n\n${file.content.trim()}`;
}

/** The not-yet-loaded context files of the folders from below `cwd` down to the one holding `target`. */
async function nestedContextFiles(
  target: string,
  options: NestedContextOptions,
  claimed: Set<string>,
): Promise<ContextFile[]> {
  const root = resolve(options.cwd);
  if (!target.startsWith(root + sep)) return [];
  const loaded = new Set(options.project.contextFiles.map((file) => resolve(file.path)));
  // Imports already in the system prompt are not added again either.
  for (const path of loaded) claimed.add(path);
  const folders: string[] = [];
  for (let folder = dirname(target); folder !== root && folder.startsWith(root + sep); folder = dirname(folder))
    folders.unshift(folder);
  const found: ContextFile[] = [];
  for (const folder of folders) {
    const names =
      options.claudeHome !== undefined
        ? ["AGENTS.md", "CLAUDE.md", join(".claude", "CLAUDE.md")]
        : ["AGENTS.md", "CLAUDE.md"];
    for (const name of names) {
      const path = join(folder, name);
      if (loaded.has(path) || claimed.has(path)) {
        // Without a Claude setup a folder has one context file (AGENTS.md, else CLAUDE.md), and it is taken.
        if (options.claudeHome === undefined) break;
        continue;
      }
      // Claimed before the read: a parallel call in the same folder does not add it twice.
      claimed.add(path);
      const content = await readContextFile(path);
      if (content === undefined) {
        claimed.delete(path);
        continue;
      }
      // Reading or writing the context file itself puts it in context already.
      if (path !== target) found.push({ path, content });
      if (options.claudeHome !== undefined && name !== "AGENTS.md")
        found.push(...(await importedContextFiles({ path, content }, { home: options.claudeHome, seen: claimed })));
      // Without a Claude setup gyre reads a folder's CLAUDE.md only where it has no AGENTS.md.
      if (options.claudeHome === undefined) break;
    }
  }
  return found;
}

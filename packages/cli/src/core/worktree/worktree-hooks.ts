/**
 * The hooks WorktreeCreate and WorktreeRemove run (docs/worktrees.md#hooks): those a session
 * started in the same folder would run — the user's, the project's once it is trusted (`--trust`,
 * or a remembered trust whose files did not change; nobody is asked here), and with
 * `claudeCompat` the Claude setup's (`~/.claude/settings.json`, the project's `.claude/` only
 * once trusted).
 */
import { claudeSetup, isClaudeCompat, loadClaudeSettings } from "../claude-compat/claude-compat.js";
import { loadSettings } from "../config/settings.js";
import { readHooks } from "../hooks/create-session-hooks.js";
import type { LoadedHooks } from "../hooks/load-hooks.js";
import { inspectProject } from "../inspect-project.js";

/** The flags of the run that makes or removes the worktree (both absent for `gyre worktree`). */
export type WorktreeHookFlags = { trust?: boolean; claudeCompat?: boolean };

/** The hooks of the folder `cwd` for a worktree event; never asks anyone. */
export async function loadWorktreeHooks(
  options: WorktreeHookFlags & { cwd: string; gyreHome: string; env: NodeJS.ProcessEnv },
): Promise<LoadedHooks> {
  const { cwd, gyreHome, env } = options;
  const { trusted } = await inspectProject({ cwd, home: gyreHome, trust: options.trust === true });
  const settings = await loadSettings({ gyreHome, cwd, includeProject: trusted });
  const claude = isClaudeCompat(options.claudeCompat, settings.settings.claudeCompat)
    ? await loadClaudeSettings(claudeSetup({ cwd, env, trusted }))
    : undefined;
  const loaded = await readHooks({ gyreHome, cwd, trusted, ...(claude ? { claudeHooks: claude.hooks } : {}) });
  return { commands: loaded.commands, warnings: [...(claude?.warnings ?? []), ...loaded.warnings] };
}

/**
 * Sessions in their own git worktree (docs/worktrees.md): `gyre -w` adds a worktree of the
 * current repository on a new branch `gyre/<name>` from HEAD, in `<repository>-worktrees/`, and
 * keeps it after exit for review; `gyre worktree list|remove` shows and removes them.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { basename, dirname, join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { HookRunner } from "../hooks/hook-runner.js";
import type { HookEvent } from "../hooks/hook-types.js";
import { loadWorktreeHooks, type WorktreeHookFlags } from "./worktree-hooks.js";
import { worktreeNameProblem } from "./worktree-name.js";

const run = promisify(execFile);

/** One of gyre's worktrees. */
export type GyreWorktree = { name: string; path: string; branch: string };

async function git(cwd: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run("git", args, { cwd, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new Error(stderr || (error as Error).message);
  }
}

/** The top folder of the repository `cwd` is in; a sentence saying what to do when there is none. */
export async function repositoryRoot(cwd: string): Promise<string> {
  try {
    return (await git(cwd, ["rev-parse", "--show-toplevel"])).trim();
  } catch {
    throw new Error(`${cwd} is not inside a git repository; gyre -w needs one (run git init, or leave out -w).`);
  }
}

/**
 * The main checkout of the repository `cwd` is in, also from inside one of its worktrees (whose
 * own top folder is elsewhere): gyre's worktrees are kept beside it.
 */
export async function mainCheckout(cwd: string): Promise<string> {
  const top = await repositoryRoot(cwd);
  const common = (await git(top, ["rev-parse", "--path-format=absolute", "--git-common-dir"])).trim();
  return basename(common) === ".git" ? dirname(common) : top;
}

/**
 * Where gyre keeps the worktrees of the repository at `root`: `<root>-worktrees/` beside it. Not
 * under `$GYRE_HOME`, which the file tools and the sandbox keep read-only.
 */
export function worktreesDir(root: string): string {
  return join(dirname(resolve(root)), `${basename(root)}-worktrees`);
}

/** A name for a worktree nobody named: the date and a few random letters. */
export function generateWorktreeName(now = new Date()): string {
  const day = now.toISOString().slice(0, 10).replaceAll("-", "");
  return `${day}-${randomBytes(3).toString("hex")}`;
}

/**
 * Adds a worktree on branch `gyre/<name>` from HEAD and returns it, with the folder to work in
 * (the same subfolder of it as `cwd` is of the repository). Runs WorktreeCreate hooks after.
 * Throws a sentence for a bad or taken name, or outside a repository.
 */
export async function createWorktree(
  options: WorktreeHookFlags & {
    cwd: string;
    gyreHome: string;
    env: NodeJS.ProcessEnv;
    name?: string;
  },
): Promise<GyreWorktree & { workDir: string; messages: string[] }> {
  const name = options.name ?? generateWorktreeName();
  const problem = worktreeNameProblem(name);
  if (problem) throw new Error(problem);
  // From the checkout `cwd` is in (its HEAD), into the folder beside the main one.
  const top = await repositoryRoot(options.cwd);
  const root = await mainCheckout(options.cwd);
  const path = join(worktreesDir(root), name);
  const branch = `gyre/${name}`;
  try {
    await git(top, ["worktree", "add", "-b", branch, path, "HEAD"]);
  } catch (error) {
    throw new Error(`Could not add the worktree ${name}: ${(error as Error).message}`);
  }
  const workDir = join(path, relative(top, resolve(options.cwd)));
  const messages = await runWorktreeHook(
    "WorktreeCreate",
    { ...options, root },
    {
      name,
      worktree_path: path,
      branch,
    },
  );
  return { name, path, branch, workDir, messages };
}

/** gyre's worktrees of the repository `cwd` is in (branch `gyre/*` under its folder), as git lists them. */
export async function listWorktrees(options: { cwd: string; gyreHome: string }): Promise<GyreWorktree[]> {
  const root = await mainCheckout(options.cwd);
  const dir = worktreesDir(root);
  const listing = await git(root, ["worktree", "list", "--porcelain"]);
  const found: GyreWorktree[] = [];
  for (const block of listing.split("\n\n")) {
    const path = /^worktree (.+)$/m.exec(block)?.[1];
    const branch = /^branch refs\/heads\/(.+)$/m.exec(block)?.[1];
    if (!path || !branch?.startsWith("gyre/") || resolve(path, "..") !== resolve(dir)) continue;
    found.push({ name: basename(path), path, branch });
  }
  return found;
}

/**
 * Removes the worktree `name` (git refuses one with changes unless `force`); its branch stays,
 * holding the commits. Runs WorktreeRemove hooks after. Throws a sentence when there is none.
 */
export async function removeWorktree(
  options: WorktreeHookFlags & {
    cwd: string;
    gyreHome: string;
    env: NodeJS.ProcessEnv;
    name: string;
    force?: boolean;
  },
): Promise<GyreWorktree & { messages: string[] }> {
  const worktree = (await listWorktrees(options)).find((entry) => entry.name === options.name);
  if (!worktree) throw new Error(`No gyre worktree is named ${options.name}; gyre worktree list shows them.`);
  const root = await mainCheckout(options.cwd);
  try {
    await git(root, ["worktree", "remove", ...(options.force ? ["--force"] : []), worktree.path]);
  } catch (error) {
    throw new Error(`Could not remove ${worktree.name}: ${(error as Error).message} (--force removes it anyway).`);
  }
  const messages = await runWorktreeHook(
    "WorktreeRemove",
    { ...options, root },
    {
      name: worktree.name,
      worktree_path: worktree.path,
      branch: worktree.branch,
    },
  );
  return { ...worktree, messages };
}

/**
 * WorktreeCreate/WorktreeRemove: the hooks a session in `cwd` would run (`loadWorktreeHooks`),
 * in the repository's main checkout; returns what they said for the user.
 */
async function runWorktreeHook(
  event: HookEvent,
  where: WorktreeHookFlags & { root: string; cwd: string; gyreHome: string; env: NodeJS.ProcessEnv },
  fields: Record<string, string>,
): Promise<string[]> {
  const { commands, warnings } = await loadWorktreeHooks(where);
  const runner = new HookRunner(commands, { projectDir: where.root, env: where.env });
  if (!runner.has(event)) return warnings;
  const outcome = await runner.run(
    { session_id: "", transcript_path: "", cwd: where.root, hook_event_name: event, ...fields },
    { target: fields.name ?? "" },
  );
  return [...warnings, ...outcome.messages, ...(outcome.blocked ? [outcome.blocked] : [])];
}

/**
 * Fresh workspaces for fleet jobs, eval runs and replays: a copy of a folder, or a clone of a git
 * source checked out at a ref, in a new temp folder that `cleanup` removes.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { SESSION_FORMAT_VERSION } from "gyre/fleet-support";

export type Workspace = { cwd: string; cleanup: () => Promise<void> };

/** Where a run's files come from: a folder to copy, or a git repository (and ref) to clone. */
export type WorkspaceSource = { folder: string } | { git: { url: string; ref?: string } };

/** A new temp folder holding a copy of `source` (the source itself is never touched). */
export async function freshWorkspace(source: WorkspaceSource, prefix = "gyre-run-"): Promise<Workspace> {
  const root = await mkdtemp(nodePath.join(tmpdir(), prefix));
  const cwd = nodePath.join(root, "work");
  const cleanup = () => rm(root, { recursive: true, force: true });
  try {
    if ("folder" in source) await cp(source.folder, cwd, { recursive: true, verbatimSymlinks: true });
    else {
      await runGit(["clone", "--quiet", source.git.url, cwd], root);
      if (source.git.ref !== undefined) await runGit(["checkout", "--quiet", source.git.ref], cwd);
    }
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { cwd, cleanup };
}

function runGit(args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`git ${args[0]} failed: ${stderr.trim() || `exit ${code}`}`)),
    );
  });
}

/** The header line of a new session file whose run works in `cwd` (what `--session <file>` opens). */
export function sessionHeaderLine(cwd: string): string {
  return JSON.stringify({
    type: "session",
    version: SESSION_FORMAT_VERSION,
    id: randomUUID(),
    timestamp: new Date().toISOString(),
    cwd,
  });
}

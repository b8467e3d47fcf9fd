/**
 * Rewind without git: the bytes of files a write or edit is about to change (and has changed),
 * kept content-addressed under `$GYRE_HOME/checkpoints/<workspace-id>/preimages/`. Only regular
 * files inside the workspace are kept; anything else is recorded as skipped and never restored.
 */
import { createHash, randomBytes } from "node:crypto";
import { realpathSync } from "node:fs";
import { chmod, lstat, mkdir, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import type { FileImage } from "../session/types.js";
import { expandPath } from "../tools/path-policy.js";
import { workspaceId } from "./shadow-repository.js";

/** The file-changing built-in tools whose target a pre-image can cover (`args.path`). */
export const IMAGED_TOOL_NAMES: readonly string[] = ["write", "edit"];

export type FileImageStoreOptions = { gyreHome: string; workspace: string; maxFileBytes: number };

/**
 * The path inside `workspace` (a real path) that a tool's `path` argument names, symlinks
 * resolved; undefined when it is outside the workspace or the workspace itself.
 */
export async function workspaceRelativePath(workspace: string, path: string): Promise<string | undefined> {
  const real = await realpathOfPossiblyMissing(expandPath(path, workspace, homedir()));
  const inside = relative(workspace, real);
  if (inside === "" || inside.startsWith(`..${sep}`) || inside === ".." || isAbsolute(inside)) return undefined;
  return inside;
}

/** Saves and restores file images of one workspace. */
export class FileImageStore {
  readonly workspace: string;
  readonly dir: string;
  private readonly maxFileBytes: number;

  constructor(options: FileImageStoreOptions) {
    this.workspace = realpathSync(options.workspace);
    this.dir = join(options.gyreHome, "checkpoints", workspaceId(this.workspace), "preimages");
    this.maxFileBytes = options.maxFileBytes;
  }

  /**
   * The workspace-relative path a tool's `path` argument names, or undefined when it is outside
   * the workspace (the tool refuses it, or it is not the workspace's to rewind).
   */
  relativePath(path: string): Promise<string | undefined> {
    return workspaceRelativePath(this.workspace, path);
  }

  /** Saves the current bytes of `path` (workspace-relative) and returns its image. */
  async capture(path: string): Promise<FileImage> {
    const full = join(this.workspace, path);
    const info = await lstat(full).catch(() => undefined);
    if (info === undefined) return { path, blob: null };
    if (!info.isFile() || info.size > this.maxFileBytes) return { path, blob: null, skipped: true };
    const content = await readFile(full);
    const blob = createHash("sha256").update(content).digest("hex");
    const stored = join(this.dir, blob);
    if (!(await stat(stored).catch(() => undefined))) {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      const temporary = `${stored}.${randomBytes(4).toString("hex")}.tmp`;
      await writeFile(temporary, content, { mode: 0o600 });
      await rename(temporary, stored);
    }
    return { path, blob, mode: info.mode & 0o7777 };
  }

  /** Whether the saved bytes of `blob` are still there. */
  async has(blob: string): Promise<boolean> {
    return (await stat(join(this.dir, blob)).catch(() => undefined)) !== undefined;
  }

  /** Puts `image` back in the work tree: its bytes and mode, or removes the file for a `null` blob. */
  async restore(image: FileImage): Promise<void> {
    const full = join(this.workspace, image.path);
    if (image.blob === null) {
      await rm(full, { force: true });
      return;
    }
    const content = await readFile(join(this.dir, image.blob)).catch(() => {
      throw new Error(`The saved copy of ${image.path} is missing from ${this.dir}.`);
    });
    await mkdir(dirname(full), { recursive: true });
    const temporary = join(dirname(full), `.gyre-restore-${randomBytes(4).toString("hex")}`);
    try {
      await writeFile(temporary, content);
      await chmod(temporary, image.mode ?? 0o644);
      await rename(temporary, full);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  /** The blob id the file has now (null: absent; "skipped": not a small regular file). */
  async currentBlob(path: string): Promise<string | null | "skipped"> {
    const full = join(this.workspace, path);
    const info = await lstat(full).catch(() => undefined);
    if (info === undefined) return null;
    if (!info.isFile() || info.size > this.maxFileBytes) return "skipped";
    return createHash("sha256")
      .update(await readFile(full))
      .digest("hex");
  }
}

/** The real path of `path`; for a missing file, its nearest existing ancestor resolved plus the rest. */
async function realpathOfPossiblyMissing(path: string): Promise<string> {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(await realpath(current), ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      missing.push(current.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      current = parent;
    }
  }
}

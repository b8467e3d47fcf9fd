/** Where grep and find run ripgrep, so its output paths can be shown relative to the workspace. */
import * as nodePath from "node:path";
import { notRegularFile } from "./file-kind.js";
import { hasRawBytes, showPath } from "./file-names.js";
import type { PathPolicy } from "./path-policy.js";
import { INHERITED_FILE_ARGUMENT } from "./run-ripgrep.js";
import type { ToolFileSystem } from "./tool-fs.js";

export type SearchTarget = {
  /** Directory rg runs in (globs are relative to it). */
  cwd: string;
  /** The path argument for rg ("." or a file name, or `INHERITED_FILE_ARGUMENT` for `inheritFile`). */
  argument: string;
  /** A file whose name is not UTF-8: rg gets it as an inherited fd (see `runRipgrep`). */
  inheritFile?: string;
  /** Prefix that turns an rg output path into a workspace-relative (or absolute) one; "" at the root. */
  displayPrefix: string;
  displayPath: string;
};

/** Resolves `path` (default the workspace) through the policy; throws when missing or refused. */
export async function resolveSearchTarget(
  policy: PathPolicy,
  fs: ToolFileSystem,
  path: string | undefined,
): Promise<SearchTarget> {
  const resolved = await policy.resolve(path ?? ".");
  if (!resolved.exists) throw new Error(`Path not found: ${resolved.displayPath}. Use ls to see what exists.`);
  const stat = await fs.stat(resolved.realPath);
  // ripgrep would block for ever reading a FIFO it was pointed at.
  if (!stat.isDirectory && !stat.isFile) throw new Error(notRegularFile(resolved.displayPath));
  const directory = stat.isDirectory ? resolved.realPath : nodePath.dirname(resolved.realPath);
  const directoryDisplay = await policy.display(directory);
  const name = nodePath.basename(resolved.realPath);
  const inherit = !stat.isDirectory && hasRawBytes(name);
  return {
    cwd: directory,
    argument: stat.isDirectory ? "." : inherit ? INHERITED_FILE_ARGUMENT : name,
    ...(inherit ? { inheritFile: resolved.realPath } : {}),
    displayPrefix: directoryDisplay === "." ? "" : `${directoryDisplay}/`,
    displayPath: resolved.displayPath,
  };
}

/** Said where results were left out because the user's `read(...)` deny rules cover them. */
export const DENIED_NOTICE = "some files were left out: the user's permission rules deny reading them";

/** The absolute path of a result rg printed, for the deny rules (rg never follows symlinked folders). */
export function resultPath(target: SearchTarget, rgPath: string): string {
  if (target.inheritFile !== undefined && rgPath === INHERITED_FILE_ARGUMENT) return target.inheritFile;
  return nodePath.join(target.cwd, rgPath);
}

/** Turns a path rg printed (relative to the target's cwd) into one the model can pass to read. */
export function displayResultPath(target: SearchTarget, rgPath: string): string {
  if (target.inheritFile !== undefined && rgPath === INHERITED_FILE_ARGUMENT) return target.displayPath;
  const relative = rgPath.startsWith("./") ? rgPath.slice(2) : rgPath;
  return target.displayPrefix + showPath(relative);
}

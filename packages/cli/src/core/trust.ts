import { mkdir, readFile, realpath, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pathExists } from "./path-exists.js";
import type { UserInterface } from "./user-interface.js";

/** Trust decisions, remembered per canonical project path (with `fingerprintProject` of what it applies). */
type TrustFile = { projects: Record<string, { trustedAt: string; fingerprint?: string }> };

function trustFilePath(gyreHome: string): string {
  return join(gyreHome, "trusted-projects.json");
}

async function readTrustFile(gyreHome: string): Promise<TrustFile> {
  try {
    const parsed = JSON.parse(await readFile(trustFilePath(gyreHome), "utf8")) as TrustFile;
    return parsed && typeof parsed.projects === "object" ? parsed : { projects: {} };
  } catch {
    return { projects: {} };
  }
}

/** The canonical path trust is keyed by (symlinks resolved). */
export async function canonicalProjectPath(cwd: string): Promise<string> {
  try {
    return await realpath(cwd);
  } catch {
    return cwd;
  }
}

/** Remembers that the user trusts the project at `cwd` (atomic write of the trust file). */
export async function trustProject(options: { gyreHome: string; cwd: string; fingerprint?: string }): Promise<void> {
  const file = await readTrustFile(options.gyreHome);
  file.projects[await canonicalProjectPath(options.cwd)] = {
    trustedAt: new Date().toISOString(),
    ...(options.fingerprint !== undefined ? { fingerprint: options.fingerprint } : {}),
  };
  const path = trustFilePath(options.gyreHome);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, path);
}

/** Whether the project is trusted, was never trusted, or was trusted before its configuration changed. */
export type ProjectTrustState = "trusted" | "untrusted" | "changed";

export async function getProjectTrustState(options: {
  gyreHome: string;
  cwd: string;
  fingerprint: string;
}): Promise<ProjectTrustState> {
  const file = await readTrustFile(options.gyreHome);
  const record = file.projects[await canonicalProjectPath(options.cwd)];
  if (!record) return "untrusted";
  if (record.fingerprint !== undefined && record.fingerprint !== options.fingerprint) return "changed";
  return "trusted";
}

/**
 * Decides whether the project's `.gyre/` settings, extensions and context files apply: `--trust`
 * trusts for this run; a remembered trust holds while none of them changed; else,
 * when a person can answer (`ask`), they are asked and a yes is remembered with the fingerprint.
 * Returns the decision and, when untrusted, a warning sentence for stderr (undefined if there
 * was nothing to trust).
 */
export async function decideProjectTrust(options: {
  gyreHome: string;
  cwd: string;
  /** `fingerprintProject` of the folder: `.gyre/` and the project's context files. */
  fingerprint: string;
  /** `--trust` was given. */
  trustFlag: boolean;
  /** Whether the project has anything trust would unlock (a `.gyre/` folder, context files). */
  hasProjectConfig: boolean;
  /** Asks the user; given only where a person can answer before the run (interactive mode). */
  ui?: UserInterface;
}): Promise<{ trusted: boolean; warning?: string }> {
  if (options.trustFlag) return { trusted: true };
  const state = await getProjectTrustState(options);
  if (state === "trusted") return { trusted: true };
  if (!options.hasProjectConfig) return { trusted: false };
  if (options.ui?.interactive) {
    const yes = await options.ui.confirm({
      title: state === "changed" ? "This folder's gyre configuration changed. Trust it again?" : "Trust this folder?",
      message:
        state === "changed"
          ? `Files in ${join(options.cwd, ".gyre")} or its context files (AGENTS.md, CLAUDE.md) changed since you trusted ${options.cwd}. Settings widen what tools may touch, and extensions run code with your permissions.`
          : `${options.cwd} has its own gyre configuration (.gyre/ settings, prompts, extensions, or context files). Extensions run code with your permissions; trust it only if you trust its authors.`,
    });
    if (yes) {
      await trustProject(options);
      return { trusted: true };
    }
  }
  const hasGyreFolder = await pathExists(join(options.cwd, ".gyre"));
  if (!hasGyreFolder && state !== "changed") return { trusted: false };
  return {
    trusted: false,
    warning:
      state === "changed"
        ? "This folder's .gyre/ files or context files changed since it was trusted, so its .gyre/ settings, prompts, skills, extensions and context files were not loaded; pass --trust (or trust it again interactively) to use them."
        : "This folder's .gyre/ settings, prompts and extensions were not loaded because it is not trusted; pass --trust to use them.",
  };
}

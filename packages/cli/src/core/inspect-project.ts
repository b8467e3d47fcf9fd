import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { getGyreHome } from "./config/paths.js";
import { CliError } from "./errors.js";
import { fingerprintProject } from "./project-fingerprint.js";
import { type ContextFile, isGyreHomeContextFile, loadContextFiles } from "./system-prompt/context-files.js";
import { decideProjectTrust } from "./trust.js";
import type { UserInterface } from "./user-interface.js";

/** Something the user should hear about at start-up. `problem`s are shown even in quiet headless runs. */
export type RuntimeNotice = { level: "warning" | "problem"; text: string };

/** The project folder as a run sees it: trusted or not, and the context files it may use. */
export type ProjectInfo = {
  cwd: string;
  trusted: boolean;
  /** AGENTS.md-style files the run may read (the project's only when trusted). */
  contextFiles: ContextFile[];
  notices: RuntimeNotice[];
};

/** `$GYRE_HOME` (default `~/.gyre`). Throws a `CliError` ("bad_usage") when it names something that is not a directory. */
export async function resolveGyreHome(env: NodeJS.ProcessEnv): Promise<string> {
  const home = getGyreHome(env);
  const isFile = await stat(home).then(
    (info) => !info.isDirectory(),
    () => false,
  );
  if (isFile)
    throw new CliError(
      "bad_usage",
      `GYRE_HOME ${home} is not a directory; point GYRE_HOME at a directory (default ~/.gyre).`,
    );
  return home;
}

/**
 * Decides whether the project at `cwd` is trusted (remembered, `trust`, or asked through `ui`
 * when given) and which context files the run may use. Settings, extensions and prompts of an
 * untrusted project never load.
 */
export async function inspectProject(options: {
  cwd: string;
  home: string;
  trust: boolean;
  ui?: UserInterface;
}): Promise<ProjectInfo> {
  const { cwd, home } = options;
  const contextFiles = await loadContextFiles({ cwd, gyreHome: home });
  const decision = await decideProjectTrust({
    gyreHome: home,
    cwd,
    fingerprint: await fingerprintProject({ cwd, gyreHome: home, contextFiles }),
    trustFlag: options.trust,
    hasProjectConfig:
      (await holdsEntries(join(cwd, ".gyre"))) ||
      (await holdsEntries(join(cwd, ".claude"))) ||
      contextFiles.some((file) => !isGyreHomeContextFile(file.path, home)),
    ...(options.ui ? { ui: options.ui } : {}),
  });
  return {
    cwd,
    trusted: decision.trusted,
    contextFiles: decision.trusted
      ? contextFiles
      : contextFiles.filter((file) => isGyreHomeContextFile(file.path, home)),
    notices: decision.warning ? [{ level: "warning", text: decision.warning }] : [],
  };
}

/** Whether `path` exists and, if it is a folder, holds anything: an empty `.gyre/` (a sandbox mount point) configures nothing. */
async function holdsEntries(path: string): Promise<boolean> {
  const entries = await readdir(path).catch((error: NodeJS.ErrnoException) => (error.code === "ENOTDIR" ? [path] : []));
  return entries.length > 0;
}

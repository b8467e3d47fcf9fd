/**
 * The context files read again for the next run (after `remember`), without the rest of
 * `/reload`: the project's only when its folder is trusted, as at start-up.
 */
import type { ProjectInfo } from "../inspect-project.js";
import { isGyreHomeContextFile, loadContextFiles } from "../system-prompt/context-files.js";

export type ContextRefresh = {
  cwd: string;
  gyreHome: string;
  /** The runtime's project: its `contextFiles` are replaced in place. */
  project: ProjectInfo;
  /** Builds the system prompt from the project as it is now and gives it to the session. */
  applySystemPrompt: () => Promise<void>;
};

/** Re-reads the context files and rebuilds the system prompt; returns the paths now in the context. */
export async function refreshContextFiles(target: ContextRefresh): Promise<string[]> {
  const files = (await loadContextFiles({ cwd: target.cwd, gyreHome: target.gyreHome })).filter(
    (file) => target.project.trusted || isGyreHomeContextFile(file.path, target.gyreHome),
  );
  target.project.contextFiles = files;
  await target.applySystemPrompt();
  return files.map((file) => file.path);
}

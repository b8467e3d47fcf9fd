/** Lists files with `rg --files` (respecting .gitignore), filtered by a glob in JS. */
import { createGlobMatcher } from "./glob-match.js";
import { type RipgrepRun, runRipgrep } from "./run-ripgrep.js";

/** Arguments every search shares: .gitignore honoured even outside git repos, dotfiles in, .git out. */
export const COMMON_RG_ARGS = ["--no-require-git", "--hidden", "--glob", "!.git"];

export type ListedFiles = RipgrepRun & { paths: string[] };

/**
 * Paths (as rg prints them, relative to `cwd`, without "./") matching `glob`, in rg's order.
 * Stops rg after `max` matches (`stopped`).
 */
export async function listFiles(options: {
  rgPath: string;
  cwd: string;
  glob: string;
  max: number;
  signal: AbortSignal;
}): Promise<ListedFiles> {
  const matches = await createGlobMatcher(options.glob);
  const paths: string[] = [];
  const run = await runRipgrep({
    rgPath: options.rgPath,
    args: ["--files", "--null", ...COMMON_RG_ARGS, "--", "."],
    cwd: options.cwd,
    // NUL-separated: a file name may hold a newline.
    records: "nul",
    signal: options.signal,
    onLine(line) {
      const path = line.startsWith("./") ? line.slice(2) : line;
      if (path.length > 0 && matches(path)) paths.push(path);
      return paths.length < options.max;
    },
  });
  return { ...run, paths };
}

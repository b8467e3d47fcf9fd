/**
 * What `/review` looks at (docs/review.md): the working tree against HEAD, untracked files
 * included (`uncommitted`), or the branch against the merge base with `base` (`merge-base..HEAD`).
 * Read with the user's own git in the workspace; nothing is changed.
 */
import { execFile } from "node:child_process";

/** Which changes to review; neither field: the uncommitted ones. */
export type ReviewScope = { base?: string; uncommitted?: boolean };

export type ReviewDiff = {
  /** One line naming what was diffed, e.g. "uncommitted changes against HEAD (a1b2c3d)". */
  description: string;
  /** The unified patch, cut at `MAX_REVIEW_DIFF_BYTES` (with a note) when larger. */
  patch: string;
  /** The changed paths, in patch order. */
  files: string[];
  truncated: boolean;
};

/** The most of the patch the reviewer is given; it can read the files for the rest. */
export const MAX_REVIEW_DIFF_BYTES = 200 * 1024;

type GitRun = { code: number; stdout: string; stderr: string };

function git(cwd: string, args: readonly string[], okCodes: readonly number[] = [0]): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      ["-c", "core.quotePath=false", "--no-pager", ...args],
      { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        if (error && (error as NodeJS.ErrnoException).code === "ENOENT")
          return reject(new Error("git is not installed or not on PATH; /review needs it to read the changes."));
        if (!okCodes.includes(code)) {
          const why = stderr.trim().split("\n")[0] ?? "";
          return reject(new Error(`git ${args[0]} failed: ${why || `exit ${code}`}.`));
        }
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The diff `scope` names in the repository at `cwd`; throws one sentence when it cannot be read. */
export async function collectReviewDiff(cwd: string, scope: ReviewScope): Promise<ReviewDiff> {
  if (scope.base !== undefined && scope.uncommitted)
    throw new Error("Pass either --base <ref> or --uncommitted, not both.");
  const inside = await git(cwd, ["rev-parse", "--is-inside-work-tree"], [0, 128]).catch(() => undefined);
  if (inside?.stdout.trim() !== "true") throw new Error(`${cwd} is not inside a git repository; /review reads git.`);
  const head = await git(cwd, ["rev-parse", "--short", "HEAD"], [0, 128]);
  if (head.code !== 0) throw new Error("The repository has no commits yet; commit once, then review.");
  const headId = head.stdout.trim();
  if (scope.base !== undefined) return branchDiff(cwd, scope.base, headId);
  return uncommittedDiff(cwd, headId);
}

async function branchDiff(cwd: string, base: string, headId: string): Promise<ReviewDiff> {
  if (base.startsWith("-")) throw new Error(`"${base}" is not a git ref; pass a branch, tag or commit to --base.`);
  const resolved = await git(cwd, ["rev-parse", "--verify", "--quiet", `${base}^{commit}`], [0, 1, 128]);
  if (resolved.code !== 0) throw new Error(`There is no commit "${base}" in this repository; check the --base ref.`);
  const mergeBase = await git(cwd, ["merge-base", base, "HEAD"], [0, 1]);
  if (mergeBase.code !== 0) throw new Error(`"${base}" and HEAD have no common ancestor; pick another --base.`);
  const from = mergeBase.stdout.trim();
  const patch = await git(cwd, ["diff", "--no-color", "--no-ext-diff", `${from}..HEAD`]);
  const files = await git(cwd, ["diff", "--name-only", "-z", `${from}..HEAD`]);
  return finish(
    `the branch against ${base} (merge base ${from.slice(0, 7)}..HEAD ${headId})`,
    patch.stdout,
    splitZ(files.stdout),
  );
}

async function uncommittedDiff(cwd: string, headId: string): Promise<ReviewDiff> {
  const tracked = await git(cwd, ["diff", "--no-color", "--no-ext-diff", "HEAD"]);
  const trackedFiles = splitZ((await git(cwd, ["diff", "--name-only", "-z", "HEAD"])).stdout);
  const untracked = splitZ((await git(cwd, ["ls-files", "--others", "--exclude-standard", "-z"])).stdout);
  const parts = [tracked.stdout];
  let size = tracked.stdout.length;
  for (const path of untracked) {
    if (size > MAX_REVIEW_DIFF_BYTES) break;
    // Exit 1 means "they differ", which a new file always does.
    const added = await git(
      cwd,
      ["diff", "--no-color", "--no-ext-diff", "--no-index", "--", "/dev/null", path],
      [0, 1],
    );
    parts.push(added.stdout);
    size += added.stdout.length;
  }
  return finish(`uncommitted changes against HEAD (${headId})`, parts.join(""), [...trackedFiles, ...untracked]);
}

function finish(description: string, patch: string, files: string[]): ReviewDiff {
  const truncated = Buffer.byteLength(patch) > MAX_REVIEW_DIFF_BYTES;
  const cut = truncated
    ? `${Buffer.from(patch).subarray(0, MAX_REVIEW_DIFF_BYTES).toString("utf8")}\n[the diff is longer; read the files for the rest]\n`
    : patch;
  return { description, patch: cut, files, truncated };
}

function splitZ(text: string): string[] {
  return text.split("\0").filter((part) => part !== "");
}

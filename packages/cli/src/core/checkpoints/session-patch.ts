/**
 * `/diff`'s patch (docs/rewind.md): what the workspace changed since the session's first
 * checkpoint, as `git diff` of the two snapshot trees in the shadow repository, with per-file
 * line counts. Read only; large patches are cut.
 */
import { runGit } from "./run-git.js";
import type { ShadowRepository } from "./shadow-repository.js";

/** One changed file's line counts; `binary` when git cannot count lines. */
export type FileStat = { path: string; added: number; removed: number; binary?: boolean };

/** The most patch lines `/diff` is given; it says how many more there were. */
export const MAX_PATCH_LINES = 4000;

export type SessionPatch = { patch: string; stats: FileStat[]; truncatedLines: number };

export async function sessionPatch(repository: ShadowRepository, from: string, to: string): Promise<SessionPatch> {
  // The shadow repository marks every path `-diff` (no conversions); `--text` diffs them anyway
  // and a file holding a NUL byte is reported as binary here instead, as git itself would.
  const args = ["diff", "--no-color", "--no-ext-diff", "--no-renames", "--text", from, to];
  const sections = splitSections((await runGit(repository.location, args)).stdout.toString("utf8"));
  const lines = sections.flatMap((section) => section.lines);
  const kept = lines.slice(0, MAX_PATCH_LINES);
  return {
    patch: kept.join("\n"),
    stats: sections.map(countLines),
    truncatedLines: Math.max(0, lines.length - kept.length),
  };
}

type Section = { path: string; lines: string[]; binary: boolean };

/** The patch per file; a file with a NUL byte keeps its header and one "Binary files differ" line. */
function splitSections(text: string): Section[] {
  const sections: Section[] = [];
  for (const line of text.replace(/\n$/, "").split("\n")) {
    if (line.startsWith("diff --git ") || sections.length === 0)
      sections.push({ path: /^diff --git a\/(.*) b\//.exec(line)?.[1] ?? "", lines: [], binary: false });
    (sections.at(-1) as Section).lines.push(line);
  }
  for (const section of sections) {
    if (!section.lines.some((line) => line.includes("\0"))) continue;
    const header = section.lines.filter((line) => /^(diff --git |index |new file mode|deleted file mode)/.test(line));
    section.lines = [...header, `Binary files a/${section.path} and b/${section.path} differ`];
    section.binary = true;
  }
  return sections.filter((section) => section.lines.some((line) => line !== ""));
}

/** Lines added and removed in a file's hunks (after its first `@@`, so `---`/`+++` headers do not count). */
function countLines(section: Section): FileStat {
  if (section.binary) return { path: section.path, added: 0, removed: 0, binary: true };
  const hunks = section.lines.slice(
    Math.max(
      0,
      section.lines.findIndex((line) => line.startsWith("@@")),
    ),
  );
  const count = (sign: string) => hunks.filter((line) => line.startsWith(sign)).length;
  return { path: section.path, added: count("+"), removed: count("-") };
}

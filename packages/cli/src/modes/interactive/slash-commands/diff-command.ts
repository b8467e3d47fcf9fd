import { summariseChanges } from "../../../core/checkpoints/tree-diff.js";
import type { SessionChanges } from "../../../core/checkpoints/types.js";
import { sanitizeText } from "../sanitize-text.js";
import { style } from "../theme.js";
import type { SlashCommand } from "./types.js";

/** /diff [--stat]: what this session changed since its first checkpoint, as a coloured patch per file (docs/rewind.md). */
export const diffCommand: SlashCommand = {
  name: "diff",
  description: "Show the patch of what this session changed since its first checkpoint (--stat: files and counts)",
  argumentHint: "[--stat]",
  run: async (args, context) => {
    const words = args.trim().split(/\s+/).filter(Boolean);
    const unknown = words.find((word) => word !== "--stat");
    if (unknown) return context.notify(`/diff takes only --stat, not "${unknown}".`, "warning");
    const result = await context.session.sessionChanges();
    if (result.notice) return context.notify(result.notice);
    context.print(renderDiff(result, words.includes("--stat")));
    if (result.caveat) context.notify(result.caveat);
  },
};

/** The heading (which checkpoint, what changed), then per file its counts or its coloured patch. */
export function renderDiff(result: SessionChanges, statOnly: boolean): string {
  const against = result.against
    ? `checkpoint ${result.against.entryId.slice(0, 8)} (${formatTime(result.against.timestamp)}, tree ${result.against.tree.slice(0, 7)})`
    : "the session's first checkpoint";
  const lines = [style.bold(`Since ${against}: ${summariseChanges(result.changes)}`)];
  const stats = new Map((result.stats ?? []).map((stat) => [stat.path, stat]));
  if (statOnly || result.patch === undefined) {
    for (const change of result.changes) {
      const stat = stats.get(change.path);
      const counts =
        stat === undefined
          ? ""
          : stat.binary
            ? "  binary"
            : `  ${style.green(`+${stat.added}`)} ${style.red(`-${stat.removed}`)}`;
      lines.push(`  ${change.status.padEnd(8)} ${sanitizeText(change.path)}${counts}`);
    }
    return lines.join("\n");
  }
  for (const line of sanitizeText(result.patch).split("\n")) lines.push(colourLine(line));
  if (result.truncatedLines)
    lines.push(style.gray(`[${result.truncatedLines} more lines; /diff --stat lists every file]`));
  return lines.join("\n").replace(/\n+$/, "");
}

function colourLine(line: string): string {
  if (line.startsWith("diff --git "))
    return `\n${style.bold(style.cyan(line.replace(/^diff --git a\/(.*) b\/.*$/, "$1")))}`;
  if (/^(index |--- |\+\+\+ |new file mode|deleted file mode|old mode|new mode)/.test(line)) return style.gray(line);
  if (line.startsWith("@@")) return style.cyan(line);
  if (line.startsWith("+")) return style.green(line);
  if (line.startsWith("-")) return style.red(line);
  return line;
}

function formatTime(timestamp: string): string {
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime()) ? timestamp : date.toLocaleString();
}

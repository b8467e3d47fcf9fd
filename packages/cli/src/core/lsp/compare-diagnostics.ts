/**
 * Which diagnostics an edit introduced and which it fixed, and the text the model reads about
 * them (the block's wording is fixed in docs/lsp.md).
 */
import type { DiagnosticsAnswer, FileDiagnostic } from "./types.js";

/** At most this many diagnostics are listed in one block; the rest are counted. */
const MAX_LISTED = 30;

export type DiagnosticsChange = {
  introduced: FileDiagnostic[];
  fixed: FileDiagnostic[];
  /** Diagnostics the file had before and still has (not repeated to the model). */
  remaining: number;
};

/**
 * Splits `after` into the diagnostics `before` already had and new ones. Two diagnostics are the
 * same when message, severity and code agree, wherever they are: an edit above an old error moves
 * it. Among several of one kind the nearest lines pair up first, so a second copy is new.
 */
export function compareDiagnostics(
  before: readonly FileDiagnostic[],
  after: readonly FileDiagnostic[],
): DiagnosticsChange {
  const unmatched = new Set(after.map((_, index) => index));
  const fixed: FileDiagnostic[] = [];
  const pairs: { from: number; to: number; distance: number }[] = [];
  before.forEach((old, from) => {
    after.forEach((now, to) => {
      if (sameKind(old, now)) pairs.push({ from, to, distance: Math.abs(old.line - now.line) });
    });
  });
  pairs.sort((left, right) => left.distance - right.distance);
  const matchedBefore = new Set<number>();
  for (const pair of pairs) {
    if (matchedBefore.has(pair.from) || !unmatched.has(pair.to)) continue;
    matchedBefore.add(pair.from);
    unmatched.delete(pair.to);
  }
  before.forEach((old, index) => {
    if (!matchedBefore.has(index)) fixed.push(old);
  });
  const introduced = after.filter((_, index) => unmatched.has(index));
  return { introduced, fixed, remaining: matchedBefore.size };
}

function sameKind(left: FileDiagnostic, right: FileDiagnostic): boolean {
  return left.message === right.message && left.severity === right.severity && left.code === right.code;
}

/** `path:line:col severity message (code)`, the message on one line. */
export function formatDiagnostic(path: string, diagnostic: FileDiagnostic): string {
  const message = diagnostic.message.replace(/\s*\n\s*/g, " ").trim();
  const code = diagnostic.code === undefined ? "" : ` (${diagnostic.code})`;
  return `${path}:${diagnostic.line}:${diagnostic.column} ${diagnostic.severity} ${message}${code}`;
}

/** Lines for a list, capped at `MAX_LISTED` with a count of the rest. */
export function listDiagnostics(path: string, diagnostics: readonly FileDiagnostic[]): string[] {
  const lines = diagnostics.slice(0, MAX_LISTED).map((diagnostic) => formatDiagnostic(path, diagnostic));
  if (diagnostics.length > MAX_LISTED) {
    lines.push(`… and ${diagnostics.length - MAX_LISTED} more; call diagnostics with this path to see them all.`);
  }
  return lines;
}

export const INTRODUCED_HEADER = "Diagnostics introduced by this edit:";

/** The sentence for a server that did not answer: never to be read as a clean file. */
export function timeoutSentence(timeoutMs: number): string {
  return (
    `The language server did not answer within ${timeoutMs} ms. ` +
    "This says nothing about the file (it may have errors); call diagnostics later to check."
  );
}

/**
 * The block appended to a write or edit result. `before` is undefined when the server gave no
 * baseline in time: then every diagnostic it has now is listed, marked as possibly older.
 */
export function describeEditDiagnostics(options: {
  path: string;
  before: readonly FileDiagnostic[] | undefined;
  after: DiagnosticsAnswer;
  notes: readonly string[];
}): { text: string; introduced: number; fixed: number } {
  const lines = [INTRODUCED_HEADER, ...options.notes];
  const { after, path } = options;
  if (after.type === "timeout")
    return { text: [...lines, timeoutSentence(after.timeoutMs)].join("\n"), introduced: 0, fixed: 0 };
  if (after.type === "unavailable") return { text: [...lines, after.reason].join("\n"), introduced: 0, fixed: 0 };
  if (options.before === undefined) {
    lines.push(
      "(The language server gave no diagnostics for the file before the edit in time, so these are all it has now.)",
    );
    lines.push(...(after.diagnostics.length === 0 ? ["No diagnostics."] : listDiagnostics(path, after.diagnostics)));
    return { text: lines.join("\n"), introduced: after.diagnostics.length, fixed: 0 };
  }
  const change = compareDiagnostics(options.before, after.diagnostics);
  lines.push(...(change.introduced.length === 0 ? ["No new diagnostics."] : listDiagnostics(path, change.introduced)));
  if (change.fixed.length > 0) {
    lines.push(`${change.fixed.length} fixed (gone since the edit):`, ...listDiagnostics(path, change.fixed));
  }
  if (change.remaining > 0) {
    const one = change.remaining === 1;
    lines.push(
      `${change.remaining} earlier diagnostic${one ? "" : "s"} of this file ${one ? "remains" : "remain"} (not repeated; diagnostics lists them).`,
    );
  }
  return { text: lines.join("\n"), introduced: change.introduced.length, fixed: change.fixed.length };
}

/**
 * A line-based unified diff (Myers' O(ND) algorithm) for edit and write details. Shown to people,
 * never to the model, so very large rewrites degrade to "all removed, all added" rather than
 * spending seconds on an optimal script.
 */

export type UnifiedDiff = {
  /** The diff in unified format with 3 lines of context; "" when nothing changed. */
  diff: string;
  /** 1-based line of the first change in the new text, if any. */
  firstChangedLine: number | undefined;
};

type Op = { kind: " " | "-" | "+"; line: string };

/** Past this many differences the middle of the diff is shown as a block replacement. */
const MAX_EDIT_DISTANCE = 2000;
const CONTEXT = 3;

/** How many lines two texts share at their start, and then at their end (never overlapping). */
export function commonLineEnds(a: readonly string[], b: readonly string[]): { prefix: number; suffix: number } {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  )
    suffix++;
  return { prefix, suffix };
}

/** The unified diff between two texts (line endings ignored). */
export function createUnifiedDiff(before: string, after: string, path: string): UnifiedDiff {
  const a = before.split(/\r?\n/);
  const b = after.split(/\r?\n/);
  const { prefix, suffix } = commonLineEnds(a, b);
  if (prefix === a.length && prefix === b.length) return { diff: "", firstChangedLine: undefined };
  const middleA = a.slice(prefix, a.length - suffix);
  const middleB = b.slice(prefix, b.length - suffix);
  const middle = myers(middleA, middleB) ?? [
    ...middleA.map((line): Op => ({ kind: "-", line })),
    ...middleB.map((line): Op => ({ kind: "+", line })),
  ];
  const ops: Op[] = [
    ...a.slice(0, prefix).map((line): Op => ({ kind: " ", line })),
    ...middle,
    ...a.slice(a.length - suffix).map((line): Op => ({ kind: " ", line })),
  ];
  return { diff: formatHunks(ops, path), firstChangedLine: prefix + 1 };
}

/** The shortest edit script from a to b, or undefined when it exceeds MAX_EDIT_DISTANCE. */
function myers(a: string[], b: string[]): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const limit = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = limit + 1;
  const v = new Int32Array(2 * limit + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0))
          ? (v[offset + k + 1] ?? 0)
          : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace);
    }
  }
  return undefined;
}

function backtrack(a: string[], b: string[], trace: Int32Array[]): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    const saved = trace[d] as Int32Array;
    const at = (k: number) => saved[k + d + 1] ?? 0;
    const k = x - y;
    const previousK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const previousX = at(previousK);
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY) {
      ops.push({ kind: " ", line: a[--x] as string });
      y--;
    }
    if (d === 0) break;
    if (x === previousX) ops.push({ kind: "+", line: b[--y] as string });
    else ops.push({ kind: "-", line: a[--x] as string });
  }
  return ops.reverse();
}

function formatHunks(ops: Op[], path: string): string {
  const out = [`--- a/${path}`, `+++ b/${path}`];
  let index = 0;
  let oldLine = 1;
  let newLine = 1;
  while (index < ops.length) {
    const firstChange = ops.findIndex((op, position) => position >= index && op.kind !== " ");
    if (firstChange === -1) break;
    const start = Math.max(index, firstChange - CONTEXT);
    for (let position = index; position < start; position++) {
      oldLine++;
      newLine++;
    }
    // Extend the hunk while the next change is within 2×CONTEXT unchanged lines.
    let end = firstChange;
    let equalRun = 0;
    for (let position = firstChange; position < ops.length; position++) {
      if (ops[position]?.kind === " ") {
        equalRun++;
        if (equalRun > 2 * CONTEXT) break;
      } else {
        equalRun = 0;
        end = position;
      }
    }
    const stop = Math.min(ops.length, end + 1 + CONTEXT);
    const hunk = ops.slice(start, stop);
    const oldCount = hunk.filter((op) => op.kind !== "+").length;
    const newCount = hunk.filter((op) => op.kind !== "-").length;
    out.push(
      `@@ -${oldCount === 0 ? oldLine - 1 : oldLine},${oldCount} +${newCount === 0 ? newLine - 1 : newLine},${newCount} @@`,
    );
    for (const op of hunk) out.push(`${op.kind}${op.line}`);
    oldLine += oldCount;
    newLine += newCount;
    index = stop;
  }
  return `${out.join("\n")}\n`;
}

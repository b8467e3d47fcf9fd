/**
 * Normalised views of a text with a map back to the original, so edit can match `oldText`
 * loosely (CRLF, trailing whitespace, unicode spaces, smart quotes, dashes, NFKC) yet replace the exact original
 * span.
 */

/** A normalised text; `start[i]`/`end[i]` give the original span of view unit `i` (absent = identity). */
export type TextView = { text: string; start?: Int32Array; end?: Int32Array };

const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B\u2032]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F\u2033]/g;
const DASHES = /[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g;
const HORIZONTAL_SPACE = /[ \t\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/;
const SEGMENT = /[\s\S]\p{M}*/uy;

/** Folds quotes and dashes to ASCII and applies NFKC; the per-segment part of the fuzzy view. */
function foldSegment(segment: string): string {
  return segment.replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"').replace(DASHES, "-").normalize("NFKC");
}

/**
 * The view used for matching. Always maps CRLF to LF; with `fuzzy` also drops trailing
 * whitespace of each line, maps unicode spaces to " ", and folds quotes, dashes and NFKC forms.
 */
export function createTextView(original: string, options: { fuzzy: boolean }): TextView {
  if (!options.fuzzy && !original.includes("\r")) return { text: original };
  const parts: string[] = [];
  // Worst case every unit maps 1:1; NFKC expansions grow the arrays on demand.
  let start = new Int32Array(original.length + 16);
  let end = new Int32Array(original.length + 16);
  let length = 0;
  const emit = (text: string, from: number, to: number) => {
    if (length + text.length > start.length) {
      const grown = Math.max(start.length * 2, length + text.length);
      start = copyInto(start, grown);
      end = copyInto(end, grown);
    }
    for (let unit = 0; unit < text.length; unit++) {
      start[length] = from;
      end[length] = to;
      length++;
    }
    parts.push(text);
  };

  let index = 0;
  while (index < original.length) {
    const char = original[index] as string;
    if (char === "\r" && original[index + 1] === "\n") {
      emit("\n", index, index + 2);
      index += 2;
      continue;
    }
    if (!options.fuzzy) {
      emit(char, index, index + 1);
      index++;
      continue;
    }
    if (HORIZONTAL_SPACE.test(char)) {
      let runEnd = index;
      while (runEnd < original.length && HORIZONTAL_SPACE.test(original[runEnd] as string)) runEnd++;
      const next = original[runEnd];
      const atLineEnd = next === undefined || next === "\n" || (next === "\r" && original[runEnd + 1] === "\n");
      if (!atLineEnd)
        for (let unit = index; unit < runEnd; unit++) {
          emit(original[unit] === "\t" ? "\t" : " ", unit, unit + 1);
        }
      index = runEnd;
      continue;
    }
    SEGMENT.lastIndex = index;
    const segment = SEGMENT.exec(original)?.[0] ?? char;
    emit(foldSegment(segment), index, index + segment.length);
    index += segment.length;
  }
  return { text: parts.join(""), start: start.subarray(0, length), end: end.subarray(0, length) };
}

function copyInto(array: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(size);
  grown.set(array);
  return grown;
}

/** `oldText` normalised the way {@link createTextView} normalises the file. */
export function normalizeNeedle(text: string, options: { fuzzy: boolean }): string {
  return createTextView(text, options).text;
}

/** Start indices of `needle` in `haystack` (overlapping ones too), at most `cap` of them. */
export function findAll(haystack: string, needle: string, cap = 50): number[] {
  const found: number[] = [];
  let from = 0;
  while (found.length < cap) {
    const index = haystack.indexOf(needle, from);
    if (index === -1) break;
    found.push(index);
    from = index + 1;
  }
  return found;
}

/** The original span of the view range [viewStart, viewStart + viewLength). */
export function toOriginalSpan(view: TextView, viewStart: number, viewLength: number): { start: number; end: number } {
  if (view.start === undefined || view.end === undefined) return { start: viewStart, end: viewStart + viewLength };
  return { start: view.start[viewStart] ?? 0, end: view.end[viewStart + viewLength - 1] ?? 0 };
}

/** The 1-based line number of `offset` in `text`. */
export function lineNumberAt(text: string, offset: number): number {
  let line = 1;
  let index = text.indexOf("\n");
  while (index !== -1 && index < offset) {
    line++;
    index = text.indexOf("\n", index + 1);
  }
  return line;
}

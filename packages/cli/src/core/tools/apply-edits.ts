/**
 * Applies a batch of `oldText → newText` replacements to a file's text. Every `oldText` is
 * located in the ORIGINAL text (exactly, else after normalisation), must match once, and the
 * spans must not overlap; then all are replaced at once.
 */
import { createTextView, findAll, lineNumberAt, normalizeNeedle, type TextView, toOriginalSpan } from "./text-view.js";

export type TextEdit = { oldText: string; newText: string };

export type AppliedEdits = {
  text: string;
  /** Per edit: whether it matched only after normalisation. */
  normalised: boolean[];
};

type Span = { index: number; start: number; end: number; replacement: string };

/** The line ending most lines of `text` use. */
export function detectLineEnding(text: string): "\r\n" | "\n" {
  const crlf = text.split("\r\n").length - 1;
  const lf = text.split("\n").length - 1 - crlf;
  return crlf > lf ? "\r\n" : "\n";
}

/**
 * The line ending at [start, end) of `text`: that of the first line break inside the span, else
 * of the line the span ends on, else of the line before it; undefined in a one-line text.
 */
function localLineEnding(text: string, start: number, end: number): "\r\n" | "\n" | undefined {
  let at = text.indexOf("\n", start);
  if (at < 0 || at >= end) at = text.indexOf("\n", end);
  if (at < 0) at = text.lastIndexOf("\n", start);
  if (at < 0) return undefined;
  return text[at - 1] === "\r" ? "\r\n" : "\n";
}

/** Applies `edits` to `original`; throws an Error for the model naming the failing edit. */
export function applyEdits(original: string, edits: readonly TextEdit[], displayPath: string): AppliedEdits {
  const lineEnding = detectLineEnding(original);
  const exact = createTextView(original, { fuzzy: false });
  let fuzzy: TextView | undefined;
  const spans: Span[] = [];
  const normalised: boolean[] = [];

  edits.forEach((edit, index) => {
    const label = edits.length === 1 ? "oldText" : `edits[${index}].oldText`;
    if (edit.oldText.length === 0) {
      throw new Error(`${label} is empty. Give the exact existing text to replace (use write to create a file).`);
    }
    const needle = normalizeNeedle(edit.oldText, { fuzzy: false });
    let view = exact;
    let matches = findAll(exact.text, needle);
    let viewNeedle = needle;
    if (matches.length === 0) {
      fuzzy ??= createTextView(original, { fuzzy: true });
      viewNeedle = normalizeNeedle(edit.oldText, { fuzzy: true });
      matches = viewNeedle.length > 0 ? findAll(fuzzy.text, viewNeedle) : [];
      view = fuzzy;
    }
    if (matches.length === 0) throw new Error(notFound(label, edit.oldText, exact.text, displayPath));
    if (matches.length > 1) {
      const lines = matches.slice(0, 10).map((match) => lineNumberAt(view.text, match));
      throw new Error(
        `${label} matches ${matches.length === 50 ? "50 or more" : matches.length} places in ${displayPath} ` +
          `(lines ${lines.join(", ")}). Each oldText must match exactly once: include more surrounding lines to make it unique.`,
      );
    }
    const span = toOriginalSpan(view, matches[0] ?? 0, viewNeedle.length);
    const newText = edit.newText.replace(/\r\n/g, "\n");
    // A file with mixed endings keeps each region's own: the new lines take the replaced ones'.
    const ending = localLineEnding(original, span.start, span.end) ?? lineEnding;
    spans.push({ index, ...span, replacement: ending === "\r\n" ? newText.replace(/\n/g, "\r\n") : newText });
    normalised.push(view !== exact);
  });

  spans.sort((a, b) => a.start - b.start);
  for (let position = 1; position < spans.length; position++) {
    const previous = spans[position - 1] as Span;
    const current = spans[position] as Span;
    if (current.start < previous.end) {
      throw new Error(
        `edits[${previous.index}] and edits[${current.index}] overlap in ${displayPath}. ` +
          "Each edit must replace a separate region: merge them into one edit.",
      );
    }
  }
  const pieces: string[] = [];
  let cursor = 0;
  for (const span of spans) {
    pieces.push(original.slice(cursor, span.start), span.replacement);
    cursor = span.end;
  }
  pieces.push(original.slice(cursor));
  return { text: pieces.join(""), normalised };
}

function notFound(label: string, oldText: string, text: string, displayPath: string): string {
  const firstLine = oldText
    .split(/\r?\n/)
    .map((line) => line.trim())
    .find((line) => line.length > 0);
  const at = firstLine === undefined ? -1 : text.indexOf(firstLine);
  const hint =
    at === -1
      ? "Read the file again and copy the text exactly, including indentation."
      : `Its first line appears at line ${lineNumberAt(text, at)}, but the following lines differ: read that part again and copy it exactly.`;
  return `${label} was not found in ${displayPath} (not even after normalising whitespace, quotes and dashes). ${hint}`;
}

/**
 * Line classification for `StreamingMarkdown`'s cuts. Deliberately conservative: a line counts as
 * "plain" only when no later line can change how it renders, and anything unsure is "open" or
 * "other", which only costs re-parsing, never a wrong layout.
 */

/** How one finished line of Markdown may take part in a cut. */
export type LineKind =
  /** A code fence opening or closing. */
  | "fence"
  /** A line inside a code fence. */
  | "code"
  | "blank"
  /** An ATX heading (`# Title`): complete in itself. */
  | "heading"
  /** Paragraph text whose inline markup (emphasis, code spans) all closes on the line. */
  | "plain"
  /** Paragraph text that may open something a later line closes (`*`, `` ` ``, `[`, `<`, …). */
  | "open"
  /** Anything else: list items, quotes, tables, rules, indented lines. */
  | "other";

const fencePattern = /^\s{0,3}(```|~~~)/;
const headingPattern = /^#{1,6}(\s|$)/;
const listItemPattern = /^(?:[-*+]|\d{1,9}[.)])(?:\s|$)/;
/** First characters that may start a block other than a paragraph (or a setext/table rule). */
const blockStart = /^[\s>|<=\-*_+`~#[!]/;
/** Characters that may open markup a later line closes, or that we do not analyse. */
const risky = /[`*_~[\]<|\\]/;
const codeSpan = /(?<!`)`[^`]+`(?!`)/g;
// Emphasis pairs as CommonMark flanking allows them: the opener not after a word character, the
// closer not before one, neither next to a space on the inside.
const strong = /(?<![\w*])\*\*(?=[^\s*])[^*]*?[^\s*]\*\*(?![\w*])/g;
const emphasis = /(?<![\w*])\*(?=[^\s*])[^*]*?[^\s*]\*(?![\w*])/g;
const strongUnderscore = /(?<![\w_])__(?=[^\s_])[^_]*?[^\s_]__(?![\w_])/g;
const emphasisUnderscore = /(?<![\w_])_(?=[^\s_])[^_]*?[^\s_]_(?![\w_])/g;
/** An underscore inside a word (snake_case) never opens or closes emphasis. */
const intraword = /(?<=[A-Za-z0-9])_(?=[A-Za-z0-9])/g;

/** Classifies `line` (without its newline); `inFence` says whether a code fence is open. */
export function lineKind(line: string, inFence: boolean): LineKind {
  if (fencePattern.test(line)) return "fence";
  if (inFence) return "code";
  if (line.trim() === "") return "blank";
  if (headingPattern.test(line)) return "heading";
  if (blockStart.test(line) || listItemPattern.test(line) || line.endsWith("  ")) return "other";
  return closesInline(line) ? "plain" : "open";
}

/** Whether `line` could be a setext heading underline or a table's delimiter row. */
export function isSetextOrTableRule(line: string): boolean {
  return /^[\s\-=|:]+$/.test(line) && /[-=]/.test(line);
}

function closesInline(line: string): boolean {
  if (!risky.test(line)) return true;
  const rest = line
    .replace(codeSpan, "")
    .replace(strong, "")
    .replace(emphasis, "")
    .replace(strongUnderscore, "")
    .replace(emphasisUnderscore, "")
    .replace(intraword, "");
  return !risky.test(rest);
}

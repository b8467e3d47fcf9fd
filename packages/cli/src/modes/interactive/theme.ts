/**
 * Colours and component themes for the interactive mode. Plain SGR sequences (16-colour palette,
 * so the user's terminal theme decides the actual colours); no colour library on the start-up path.
 */
import type { EditorTheme, MarkdownTheme, SelectListTheme } from "@mariozechner/pi-tui";
import { colourEnabled } from "./colour-support.js";
import { highlightCode } from "./highlight-code.js";

const sgr =
  (open: number, close: number) =>
  (text: string): string =>
    `\x1b[${open}m${text}\x1b[${close}m`;
const useColour = colourEnabled();
/** A colour, or plain text when the user asked for none (NO_COLOR, FORCE_COLOR=0). */
const colour = (open: number, close: number) => (useColour ? sgr(open, close) : (text: string): string => text);

/** Text styles used across the UI. */
export const style = {
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  italic: sgr(3, 23),
  underline: sgr(4, 24),
  strikethrough: sgr(9, 29),
  red: colour(31, 39),
  green: colour(32, 39),
  yellow: colour(33, 39),
  blue: colour(34, 39),
  magenta: colour(35, 39),
  cyan: colour(36, 39),
  gray: colour(90, 39),
};

export const markdownTheme: MarkdownTheme = {
  heading: (text) => style.bold(style.cyan(text)),
  link: style.blue,
  linkUrl: style.gray,
  code: style.yellow,
  codeBlock: (text) => text,
  codeBlockBorder: style.gray,
  quote: style.italic,
  quoteBorder: style.gray,
  hr: style.gray,
  listBullet: style.cyan,
  bold: style.bold,
  italic: style.italic,
  strikethrough: style.strikethrough,
  underline: style.underline,
  highlightCode: (code, lang) => (useColour ? highlightCode(code, lang) : code.split("\n")),
};

export const selectListTheme: SelectListTheme = {
  selectedPrefix: style.cyan,
  selectedText: (text) => style.bold(style.cyan(text)),
  description: style.gray,
  scrollInfo: style.gray,
  noMatch: style.gray,
};

export const editorTheme: EditorTheme = {
  borderColor: style.gray,
  selectList: selectListTheme,
};

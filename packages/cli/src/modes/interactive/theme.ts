/**
 * Colours and component themes for the interactive mode. Plain SGR sequences from the current
 * palette (palette.ts; the `theme` setting picks it); no colour library on the start-up path.
 */
import type { EditorTheme, MarkdownTheme, SelectListTheme } from "@mariozechner/pi-tui";
import { highlightCode } from "./highlight-code.js";
import { type ColourName, coloursOn, paint } from "./palette.js";

const sgr =
  (open: number, close: number) =>
  (text: string): string =>
    `\x1b[${open}m${text}\x1b[${close}m`;
/** A colour of the current palette, or plain text when the user asked for none (NO_COLOR, FORCE_COLOR=0). */
const colour =
  (name: ColourName) =>
  (text: string): string =>
    paint(name, text);

/** Text styles used across the UI. */
export const style = {
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  italic: sgr(3, 23),
  underline: sgr(4, 24),
  strikethrough: sgr(9, 29),
  red: colour("red"),
  green: colour("green"),
  yellow: colour("yellow"),
  blue: colour("blue"),
  magenta: colour("magenta"),
  cyan: colour("cyan"),
  gray: colour("gray"),
};

/**
 * pi-tui's Markdown passes a code block's fence as its border text (`\`\`\`diff` above, `\`\`\``
 * below); drawn as it is, the answer shows stray Markdown. A short rule, with the language as a dim
 * tag, frames the block instead.
 */
export function drawCodeBlockBorder(fence: string): string {
  const language = fence.replace(/^`+/, "").trim();
  return language ? `${style.gray("───")} ${style.dim(language)}` : style.gray("───");
}

export const markdownTheme: MarkdownTheme = {
  heading: (text) => style.bold(style.cyan(text)),
  link: style.blue,
  linkUrl: style.gray,
  code: style.yellow,
  codeBlock: (text) => text,
  codeBlockBorder: drawCodeBlockBorder,
  quote: style.italic,
  quoteBorder: style.gray,
  hr: style.gray,
  listBullet: style.cyan,
  bold: style.bold,
  italic: style.italic,
  strikethrough: style.strikethrough,
  underline: style.underline,
  highlightCode: (code, lang) => (coloursOn() ? highlightCode(code, lang) : code.split("\n")),
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

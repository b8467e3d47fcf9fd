import { type DefaultTextStyle, Markdown } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import { StreamingMarkdown } from "../../src/modes/interactive/components/streaming-markdown.js";
import { sanitizeText } from "../../src/modes/interactive/sanitize-text.js";
import { markdownTheme, style } from "../../src/modes/interactive/theme.js";

const lines = (count: number, make: (index: number) => string) =>
  Array.from({ length: count }, (_, index) => make(index)).join("\n");

/** Documents where a later line changes how earlier lines render, or where blocks touch. */
const documents: Record<string, string> = {
  plainLines: lines(40, (index) => `Line ${index}: some *streamed* text with \`code\` and **bold** ${"x".repeat(30)}`),
  setextHeading: "first line\nsecond line\nthird line\n---\nafter the heading\nmore",
  setextEquals: "title one\ntitle two\n===\ntext",
  tableAfterLines: "intro line\nanother line\n| a | b |\n|---|---|\n| 1 | 2 |\nafter",
  emphasisAcrossLines: "start *of an\nemphasis across* lines\nplain\nplain again",
  strongAcrossLines: "a **bold\nspan** here\nnext line\nlast",
  codeSpanAcrossLines: "a `code\nspan` here\nnext\nlast",
  linkAcrossLines: "see [the\nlink](https://example.com) here\nnext\nlast",
  htmlAcrossLines: "text <span\nclass='x'>inline</span>\nnext\nlast",
  listThenLazy: "- item one\n- item two\nlazy continuation\nmore text\n\nparagraph\nlines",
  quoteThenLazy: "> quoted\nlazy line\nmore\n\nafter",
  headingThenLines: "# Heading\nline one\nline two\nline three\n## Next\nline four\nline five",
  fenceInParagraph: "line a\nline b\n```ts\nconst x = 1;\n```\nline c\nline d",
  hardBreaks: "ends with two spaces  \nnext line\nback\\\nslash",
  intraword: "snake_case_name and other_name here\nmore_words in a line\nlast_one",
  punctuationEmphasis: "*(a)*b and\nc* d\nlast",
  numbers: "2024 was a year\n1. a list\n2. item\nafter list\nplain",
  thematic: "line\n***\nline two\nline three\n___\nend",
  mixed: `${lines(10, (index) => `para ${index} line`)}\n\n${lines(10, (index) => `- bullet ${index}`)}\n\n${lines(10, (index) => `more ${index} _it_ words`)}`,
  escapes: "evil \x1b]52;c;Zm9v\x07 line\nnext\ttab\nlast",
};

const styles: Record<string, DefaultTextStyle | undefined> = {
  plain: undefined,
  thinking: { color: style.gray, italic: true },
};

/** pi-tui's Markdown in one piece, without the padding to the full width (StreamingMarkdown drops it). */
function renderWhole(text: string, defaultStyle: DefaultTextStyle | undefined, width: number): string[] {
  return new Markdown(sanitizeText(text), 0, 0, markdownTheme, defaultStyle)
    .render(width)
    .map((line) => line.replace(/ +$/, ""));
}

function renderStreamed(text: string, defaultStyle: DefaultTextStyle | undefined, width: number, chunk: number) {
  const view = new StreamingMarkdown("", defaultStyle);
  for (let end = chunk; end < text.length + chunk; end += chunk) {
    view.setText(text.slice(0, end));
    // Rendering in between is what a frame does; it must not change the final layout.
    view.render(width);
  }
  return view.render(width);
}

describe("StreamingMarkdown", () => {
  for (const [styleName, defaultStyle] of Object.entries(styles))
    for (const [name, text] of Object.entries(documents))
      it(`renders ${name} (${styleName}) streamed exactly as in one piece`, () => {
        for (const width of [80, 33])
          for (const chunk of [1, 7, 64, text.length]) {
            expect(renderStreamed(text, defaultStyle, width, chunk), `width ${width}, chunk ${chunk}`).toEqual(
              renderWhole(text, defaultStyle, width),
            );
          }
      });

  it("writes no padding after a line's text, so a streamed frame costs only what it shows", () => {
    const view = new StreamingMarkdown("short line\n\n- item\n\n```\ncode\n```", undefined, "  ");
    const rendered = view.render(120);
    expect(rendered.length).toBeGreaterThan(3);
    for (const line of rendered) expect(line).not.toMatch(/ $/);
  });

  it("lays out each finished line of a long paragraph once", () => {
    const text = lines(2000, (index) => `Line ${index}: some *streamed* text with \`code\``);
    const view = new StreamingMarkdown("");
    let parsed = 0;
    const original = Markdown.prototype.render;
    const spy = function (this: Markdown, width: number): string[] {
      const result = original.call(this, width);
      parsed += result.length;
      return result;
    };
    Markdown.prototype.render = spy;
    try {
      for (let end = 640; end < text.length + 640; end += 640) {
        view.setText(text.slice(0, end));
        view.render(100);
      }
    } finally {
      Markdown.prototype.render = original;
    }
    // Re-laying out the whole answer each frame would be ~200 frames × ~1,000 lines.
    expect(parsed).toBeLessThan(2000 * 3);
  });
});

import { describe, expect, it } from "vitest";
import { sanitizeText } from "../../src/modes/interactive/sanitize-text.js";

describe("sanitizeText", () => {
  it("leaves ordinary text alone", () => {
    expect(sanitizeText("plain text\nwith lines")).toBe("plain text\nwith lines");
  });

  it("makes OSC 52 clipboard writes, title changes and clear-screen inert", () => {
    const hostile = "a\x1b]52;c;cHduZWQ=\x07b\x1b]0;title\x07c\x1b[2J\x1b[Hd\x1bce";
    const safe = sanitizeText(hostile);
    expect(safe).not.toContain("\x1b");
    expect(safe).not.toContain("\x07");
    expect(safe).toBe("a␛]52;c;cHduZWQ=␇b␛]0;title␇c␛[2J␛[Hd␛ce");
  });

  it("drops colour codes and shows 8-bit controls as replacement characters", () => {
    expect(sanitizeText("\x1b[31mred\x1b[0m")).toBe("red");
    expect(sanitizeText("x\x9b2Jy\x9d0;t\x07")).toBe("x\ufffd2Jy\ufffd0;t␇");
  });

  it("keeps what a terminal would show after a carriage return and expands tabs", () => {
    expect(sanitizeText("10%\r50%\r100%\nnext\r\n")).toBe("100%\nnext\n");
    expect(sanitizeText("a\tb")).toBe("a    b");
  });
});

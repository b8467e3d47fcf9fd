import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodeFileName, encodeFileName, hasRawBytes, parseShownPath, showPath, toNodePath } from "./file-names.js";

describe("file names that are not UTF-8", () => {
  it("round-trips any bytes exactly through the tools' form", () => {
    for (let round = 0; round < 2000; round++) {
      const bytes = randomBytes(1 + (round % 40));
      expect(encodeFileName(decodeFileName(bytes)).equals(bytes)).toBe(true);
    }
  });

  it("leaves valid UTF-8 names as they are, emoji and U+FFFD included", () => {
    for (const name of ["plain.txt", "café.txt", "日本語/ファイル", "🦊 fox.md", "odd\ufffd.txt"]) {
      const decoded = decodeFileName(Buffer.from(name));
      expect(decoded).toBe(name);
      expect(hasRawBytes(decoded)).toBe(false);
      expect(toNodePath(decoded)).toBe(name);
      expect(showPath(decoded)).toBe(name);
    }
  });

  it("shows raw bytes as \\xHH and reads that spelling back to the same bytes", () => {
    const bytes = Buffer.concat([Buffer.from("dir/caf"), Buffer.of(0xe9, 0xff), Buffer.from(".txt")]);
    const internal = decodeFileName(bytes);
    expect(showPath(internal)).toBe("dir/caf\\xE9\\xFF.txt");
    const parsed = parseShownPath("dir/caf\\xE9\\xff.txt");
    expect(parsed).toBe(internal);
    expect(toNodePath(parsed as string)).toEqual(bytes);
  });

  it("treats overlong forms, encoded surrogates and cut sequences as raw bytes", () => {
    for (const bytes of [Buffer.of(0xc0, 0xaf), Buffer.of(0xed, 0xa0, 0x80), Buffer.of(0xe2, 0x82), Buffer.of(0xf5)]) {
      const decoded = decodeFileName(bytes);
      expect(decoded).toBe(String.fromCharCode(...[...bytes].map((byte) => 0xdc00 + byte)));
      expect(encodeFileName(decoded).equals(bytes)).toBe(true);
    }
  });

  it("ignores escapes below \\x80, which name plain ASCII a path can hold as it is", () => {
    expect(parseShownPath("a\\x41.txt")).toBeUndefined();
    expect(parseShownPath("plain.txt")).toBeUndefined();
  });
});

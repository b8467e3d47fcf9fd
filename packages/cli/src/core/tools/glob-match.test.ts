import { describe, expect, it } from "vitest";
import { createGlobMatcher, isNameGlob } from "./glob-match.js";

describe("glob matching", () => {
  it("matches a glob without / against the file name at any depth", () => {
    const ts = createGlobMatcher("*.ts");
    expect(["a.ts", "src/deep/b.ts", "src/c.tsx", "d.ts.bak"].filter(ts)).toEqual(["a.ts", "src/deep/b.ts"]);
  });

  it("matches a glob with / against the whole relative path", () => {
    expect(createGlobMatcher("src/*.ts")("src/a.ts")).toBe(true);
    expect(createGlobMatcher("src/*.ts")("src/x/a.ts")).toBe(false);
    expect(createGlobMatcher("src/**/*.ts")("src/a.ts")).toBe(true);
    expect(createGlobMatcher("src/**/*.ts")("src/x/y/a.ts")).toBe(true);
    expect(createGlobMatcher("**/README*")("docs/README.md")).toBe(true);
  });

  it("supports ?, character classes, negated classes and braces, and escapes regex characters", () => {
    expect(createGlobMatcher("file?.[ch]")("file1.c")).toBe(true);
    expect(createGlobMatcher("file[!0-9].c")("file1.c")).toBe(false);
    expect(createGlobMatcher("*.{js,ts}")("a.ts")).toBe(true);
    expect(createGlobMatcher("a+b(c).txt")("a+b(c).txt")).toBe(true);
    expect(createGlobMatcher("a.txt")("abtxt")).toBe(false);
  });

  it("reports an unclosed bracket for the model to fix", () => {
    expect(() => createGlobMatcher("[abc")).toThrow(/unclosed "\["/);
  });

  it("tells name globs from path globs", () => {
    expect(isNameGlob("*.ts")).toBe(true);
    expect(isNameGlob("**/*.ts")).toBe(true);
    expect(isNameGlob("src/*.ts")).toBe(false);
  });
});

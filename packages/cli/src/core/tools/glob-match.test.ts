import { describe, expect, it } from "vitest";
import { createGlobMatcher, isNameGlob } from "./glob-match.js";

describe("glob matching", () => {
  it("matches a glob without / against the file name at any depth, dotfiles included", async () => {
    const ts = await createGlobMatcher("*.ts");
    expect(["a.ts", "src/deep/b.ts", "src/c.tsx", "d.ts.bak", ".hidden.ts"].filter(ts)).toEqual([
      "a.ts",
      "src/deep/b.ts",
      ".hidden.ts",
    ]);
  });

  it("matches a glob with / against the whole relative path", async () => {
    expect((await createGlobMatcher("src/*.ts"))("src/a.ts")).toBe(true);
    expect((await createGlobMatcher("src/*.ts"))("src/x/a.ts")).toBe(false);
    expect((await createGlobMatcher("src/**/*.ts"))("src/a.ts")).toBe(true);
    expect((await createGlobMatcher("src/**/*.ts"))("src/x/y/a.ts")).toBe(true);
    expect((await createGlobMatcher("**/README*"))("docs/README.md")).toBe(true);
    expect((await createGlobMatcher("/src/*.ts"))("src/a.ts")).toBe(true);
  });

  it("supports ?, character classes, negated classes and braces, and takes regex characters literally", async () => {
    expect((await createGlobMatcher("file?.[ch]"))("file1.c")).toBe(true);
    expect((await createGlobMatcher("file[!0-9].c"))("file1.c")).toBe(false);
    expect((await createGlobMatcher("file[!0-9].c"))("filex.c")).toBe(true);
    expect((await createGlobMatcher("*.{js,ts}"))("a.ts")).toBe(true);
    expect((await createGlobMatcher("a+b(c).txt"))("a+b(c).txt")).toBe(true);
    expect((await createGlobMatcher("a.txt"))("abtxt")).toBe(false);
  });

  it("expands nested braces", async () => {
    const match = await createGlobMatcher("src/{a,{b,c}}.ts");
    expect(["src/a.ts", "src/b.ts", "src/c.ts", "src/d.ts"].filter(match)).toEqual([
      "src/a.ts",
      "src/b.ts",
      "src/c.ts",
    ]);
  });

  it("takes a backslash-escaped * as a literal star", async () => {
    const match = await createGlobMatcher("file\\*.txt");
    expect(match("file*.txt")).toBe(true);
    expect(match("fileX.txt")).toBe(false);
  });

  it("supports extglobs", async () => {
    const notTests = await createGlobMatcher("!(*.test).ts");
    expect(["a.ts", "src/b.ts", "a.test.ts"].filter(notTests)).toEqual(["a.ts", "src/b.ts"]);
    expect((await createGlobMatcher("@(a|b).ts"))("b.ts")).toBe(true);
    expect((await createGlobMatcher("+(x).ts"))("xxx.ts")).toBe(true);
  });

  it("reports an unclosed bracket or brace in one sentence for the model to fix", async () => {
    await expect(createGlobMatcher("[abc")).rejects.toThrow(
      /^The glob "\[abc" is not valid \(Missing closing: "\]"\); close it, or escape the character with a backslash\.$/,
    );
    await expect(createGlobMatcher("{a,b")).rejects.toThrow(/^The glob "\{a,b" is not valid/);
  });

  it("tells name globs ripgrep can apply from globs only picomatch reads right", () => {
    expect(isNameGlob("*.ts")).toBe(true);
    expect(isNameGlob("**/*.ts")).toBe(true);
    expect(isNameGlob("*.{js,ts}")).toBe(true);
    expect(isNameGlob("src/*.ts")).toBe(false);
    expect(isNameGlob("file\\*.txt")).toBe(false);
    expect(isNameGlob("!(*.test).ts")).toBe(false);
    expect(isNameGlob("{a,{b,c}}.ts")).toBe(false);
  });
});

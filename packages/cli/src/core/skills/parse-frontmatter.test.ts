import { describe, expect, it } from "vitest";
import { parseFrontmatter } from "./parse-frontmatter.js";

describe("parseFrontmatter", () => {
  it("loads a folded description as its text, not as the folding marker", async () => {
    const text = "---\nname: pdf\ndescription: >\n  Extracts text and tables\n  from PDF files.\n---\n# Body\n";
    expect(await parseFrontmatter(text)).toEqual({
      fields: { name: "pdf", description: "Extracts text and tables from PDF files." },
      body: "# Body\n",
    });
  });

  it("keeps a literal block's line breaks and reads quoted, single-quoted and CRLF files", async () => {
    expect((await parseFrontmatter("---\ndescription: |\n  one\n  two\n---\n")).fields.description).toBe("one\ntwo");
    expect((await parseFrontmatter("---\r\nname: 'a: b'\r\ndescription: \"x # y\"\r\n---\r\nBody")).fields).toEqual({
      name: "a: b",
      description: "x # y",
    });
  });

  it("turns scalars into text and leaves lists and maps out", async () => {
    const { fields } = await parseFrontmatter("---\nversion: 3\nenabled: true\ntags: [a, b]\nmeta:\n  k: v\n---\n");
    expect(fields).toEqual({ version: "3", enabled: "true" });
  });

  it("treats text without a leading --- block as all body", async () => {
    expect(await parseFrontmatter("Just text\n---\nname: x\n---\n")).toEqual({
      fields: {},
      body: "Just text\n---\nname: x\n---\n",
    });
    expect(await parseFrontmatter("---\nname: x\nno closing line")).toEqual({
      fields: {},
      body: "---\nname: x\nno closing line",
    });
  });

  it("names the file in one sentence when the block is not valid YAML", async () => {
    await expect(parseFrontmatter("---\ndescription: [unclosed\n---\n", "/s/SKILL.md")).rejects.toThrow(
      /^The frontmatter of \/s\/SKILL\.md is not valid YAML \(.+\); fix it or remove the --- block\.$/,
    );
    await expect(parseFrontmatter("---\n- a\n- b\n---\n", "/s/SKILL.md")).rejects.toThrow(
      /is not a list of "key: value"/,
    );
  });
});

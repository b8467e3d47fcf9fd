import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { attachFiles, collapseAttachments, findAttachedPaths } from "./attachments.js";

describe("attachments", () => {
  it("finds mentions, quoted, escaped and file:// paths of existing files, and leaves other words alone", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "gyre-attach-"));
    const spaced = join(cwd, "a b.txt");
    const plain = join(cwd, "plain.txt");
    await writeFile(spaced, "x");
    await writeFile(plain, "y");
    const text = `see @plain.txt, "${spaced}" ${pathToFileURL(plain).href} ${spaced.replace(/ /g, "\\ ")} @someone /no/such/file`;
    const found = await findAttachedPaths(text, cwd);
    expect(found.paths).toEqual([plain, spaced]);
    expect(found.text).toBe(`see @plain.txt, ${spaced} ${plain} ${spaced} @someone /no/such/file`);
  });

  it("leaves a binary file out with the reason, and still sends the text", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "gyre-attach-"));
    await writeFile(join(cwd, "blob.bin"), Buffer.from([1, 0, 2, 0]));
    const attached = await attachFiles("look at @blob.bin", cwd);
    expect(attached.text).toBe("look at @blob.bin");
    expect(attached.attachments).toEqual([]);
    expect(attached.problems[0]).toContain("blob.bin was not attached");
  });

  it("shows an attached block as one line", () => {
    expect(collapseAttachments('hi @a\n\n<file name="/w/a">\nline\n</file>')).toBe("hi @a\n[attached /w/a]");
  });
});

import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AttachmentChips } from "./attachment-chips.js";
import { findAttachedPaths } from "./attachments.js";

describe("AttachmentChips", () => {
  it("turns pasted paths of existing files into chips and back into paths attachFiles finds", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "gyre-chips-"));
    const image = join(cwd, "My Shot.png");
    const quoted = join(cwd, "it's.txt");
    await writeFile(image, "x");
    await writeFile(quoted, "y");
    const chips = new AttachmentChips();
    const pasted = chips.fromPaste(`'${image}' ${quoted.replace(/([ '])/g, "\\$1")} /no/such/file`, cwd);
    expect(pasted).toBe("[image #1 My Shot.png] [file #2 it's.txt] /no/such/file");
    const expanded = chips.expand(`compare ${pasted}`);
    const found = await findAttachedPaths(expanded, cwd);
    expect(found.paths).toEqual([image, quoted]);
    expect(found.text).toBe(`compare ${image} ${quoted} /no/such/file`);
  });

  it("leaves a paste of several lines as text", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "gyre-chips-"));
    await writeFile(join(cwd, "a.txt"), "x");
    const text = `${join(cwd, "a.txt")}\nsecond line`;
    expect(new AttachmentChips().fromPaste(text, cwd)).toBe(text);
  });

  it("knows the chip a text ends with", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "gyre-chips-"));
    await writeFile(join(cwd, "a.txt"), "x");
    const chips = new AttachmentChips();
    const chip = chips.fromPaste(join(cwd, "a.txt"), cwd);
    expect(chips.chipAtEnd(`see ${chip}`)).toBe(chip);
    expect(chips.chipAtEnd(`see ${chip} now`)).toBeUndefined();
    expect(chips.chipAtEnd("see [file #1 a.tx")).toBeUndefined();
  });
});

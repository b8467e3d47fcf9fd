import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sessionPatch } from "./session-patch.js";
import { ShadowRepository } from "./shadow-repository.js";

const created: string[] = [];
afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("sessionPatch", () => {
  it("diffs two snapshots as text, counts lines per file, and shows a file with a NUL byte as binary", async () => {
    const root = await mkdtemp(join(tmpdir(), "gyre-patch-"));
    created.push(root);
    const workspace = join(root, "work");
    await mkdir(workspace);
    await writeFile(join(workspace, "a.txt"), "one\ntwo\nthree\n");
    await writeFile(join(workspace, "gone.txt"), "bye\n");
    const repository = await ShadowRepository.open({ gyreHome: join(root, "home"), workspace });
    const before = await repository.snapshot();
    await writeFile(join(workspace, "a.txt"), "one\n--- not a header\nthree\nfour\n");
    await rm(join(workspace, "gone.txt"));
    await writeFile(join(workspace, "image.bin"), Buffer.from([0x89, 0x00, 0x01, 0x02]));
    const after = await repository.snapshot();
    const result = await sessionPatch(repository, before.tree, after.tree);
    expect(result.stats).toEqual([
      { path: "a.txt", added: 2, removed: 1 },
      { path: "gone.txt", added: 0, removed: 1 },
      { path: "image.bin", added: 0, removed: 0, binary: true },
    ]);
    expect(result.patch).toContain("-two\n+--- not a header\n three\n+four");
    expect(result.patch).toContain("Binary files a/image.bin and b/image.bin differ");
    expect(result.patch).not.toContain("\0");
    expect(result.truncatedLines).toBe(0);
  });
});

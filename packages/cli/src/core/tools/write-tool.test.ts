import { chmod, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTempDir, textOf, toolContext } from "../../../test/tools/helpers.js";
import { createWriteTool } from "./write-tool.js";

describe("write tool", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await createTempDir());
  });
  afterEach(() => cleanup());

  it("creates parent directories and reports the bytes written", async () => {
    const result = await createWriteTool({ cwd: dir }).execute({ path: "a/b/c.txt", content: "héllo" }, toolContext());
    expect(await readFile(nodePath.join(dir, "a/b/c.txt"), "utf8")).toBe("héllo");
    expect(textOf(result)).toBe("Created a/b/c.txt (6 bytes).");
    expect(result.details).toEqual({ path: "a/b/c.txt", bytesWritten: 6, created: true });
  });

  it("replaces a file atomically, keeps its mode and leaves no temp file behind", async () => {
    const file = nodePath.join(dir, "run.sh");
    await writeFile(file, "old");
    await chmod(file, 0o755);
    const result = await createWriteTool({ cwd: dir }).execute({ path: "run.sh", content: "new" }, toolContext());
    expect(result.details?.created).toBe(false);
    expect(await readFile(file, "utf8")).toBe("new");
    expect((await stat(file)).mode & 0o777).toBe(0o755);
    expect(await readdir(dir)).toEqual(["run.sh"]);
  });

  it("writes through a symlink to its target inside the workspace", async () => {
    await writeFile(nodePath.join(dir, "target.txt"), "old");
    await symlink(nodePath.join(dir, "target.txt"), nodePath.join(dir, "alias.txt"));
    await createWriteTool({ cwd: dir }).execute({ path: "alias.txt", content: "new" }, toolContext());
    expect(await readFile(nodePath.join(dir, "target.txt"), "utf8")).toBe("new");
  });

  it("refuses content above the size cap", async () => {
    const tool = createWriteTool({ cwd: dir, maxBytes: 10 });
    await expect(tool.execute({ path: "x.txt", content: "x".repeat(11) }, toolContext())).rejects.toThrow(
      /above the 10 B limit for write.*smaller parts/,
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it("refuses paths outside the workspace", async () => {
    await expect(
      createWriteTool({ cwd: dir }).execute({ path: "../escape.txt", content: "x" }, toolContext()),
    ).rejects.toThrow(/Refused by the workspace policy/);
  });
});

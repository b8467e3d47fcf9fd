import { mkdir, symlink, writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTempDir } from "../../../test/tools/helpers.js";
import { createPathPolicy, expandPath, isWithin, MAX_PATH_LENGTH } from "./path-policy.js";
import { createNodeFileSystem } from "./tool-fs.js";

describe("path policy", () => {
  let root: string;
  let workspace: string;
  let cleanup: () => Promise<void>;
  const fs = createNodeFileSystem();

  beforeEach(async () => {
    ({ dir: root, cleanup } = await createTempDir());
    workspace = nodePath.join(root, "proj");
    await mkdir(nodePath.join(workspace, "src"), { recursive: true });
    await writeFile(nodePath.join(workspace, "src", "a.ts"), "a");
    await mkdir(nodePath.join(root, "proj-secret"));
    await writeFile(nodePath.join(root, "proj-secret", "key.txt"), "secret");
  });
  afterEach(() => cleanup());

  const policy = (allowedPaths: string[] = []) =>
    createPathPolicy({ cwd: workspace, allowedPaths, fs, homeDir: workspace });

  it("resolves relative paths, strips a leading @ and expands ~", async () => {
    const resolved = await policy().resolve("@src/a.ts");
    expect(resolved).toMatchObject({
      realPath: nodePath.join(workspace, "src", "a.ts"),
      displayPath: "src/a.ts",
      exists: true,
    });
    expect((await policy().resolve("~/src/a.ts")).displayPath).toBe("src/a.ts");
  });

  it("accepts a file that does not exist yet inside the workspace", async () => {
    const resolved = await policy().resolve("new/dir/file.ts");
    expect(resolved).toMatchObject({ displayPath: "new/dir/file.ts", exists: false });
  });

  it("refuses /proj-secret when the workspace is /proj", async () => {
    expect(isWithin("/proj", "/proj-secret/x")).toBe(false);
    expect(isWithin("/proj", "/proj/x")).toBe(true);
    await expect(policy().resolve("../proj-secret/key.txt")).rejects.toThrow(/outside the workspace/);
    await expect(policy().resolve(nodePath.join(root, "proj-secret", "key.txt"))).rejects.toThrow(/workspace policy/);
  });

  it("refuses a symlink inside the workspace that points outside, and names the way to allow it", async () => {
    await symlink(nodePath.join(root, "proj-secret"), nodePath.join(workspace, "link"));
    const refusal = policy().resolve("link/key.txt");
    await expect(refusal).rejects.toThrow(/--allow-path/);
    await expect(policy().resolve("link/key.txt")).rejects.toThrow(/allowedPaths/);
  });

  it("refuses a new file under a symlinked directory that points outside", async () => {
    await symlink(nodePath.join(root, "proj-secret"), nodePath.join(workspace, "link"));
    await expect(policy().resolve("link/deeper/new.txt")).rejects.toThrow(/outside the workspace/);
  });

  it("allows paths under an allowed directory, also through a symlink", async () => {
    await symlink(nodePath.join(root, "proj-secret"), nodePath.join(workspace, "link"));
    const allowed = policy([nodePath.join(root, "proj-secret")]);
    expect((await allowed.resolve("link/key.txt")).realPath).toBe(nodePath.join(root, "proj-secret", "key.txt"));
    expect((await allowed.resolve("../proj-secret/key.txt")).exists).toBe(true);
  });

  it("rejects NUL bytes, absurdly long paths and empty paths", async () => {
    await expect(policy().resolve("src/a.ts\0.png")).rejects.toThrow(/NUL byte/);
    await expect(policy().resolve("a".repeat(MAX_PATH_LENGTH + 1))).rejects.toThrow(/characters long/);
    await expect(policy().resolve("")).rejects.toThrow(/empty/);
  });
});

describe("expandPath", () => {
  it("turns pasted no-break spaces into spaces, as well as stripping @ and expanding ~", () => {
    expect(expandPath("My\u00a0Documents/a\u00a0b.txt", "/work", "/home/u")).toBe("/work/My Documents/a b.txt");
    expect(expandPath("@~/notes\u00a0old/x", "/work", "/home/u")).toBe("/home/u/notes old/x");
    expect(expandPath("~", "/work", "/home/u")).toBe("/home/u");
  });
});

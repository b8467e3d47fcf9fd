import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import {
  chmod,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  symlink,
  truncate,
  unlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createProject, hashDirectory, pictureOf } from "../../../test/checkpoints/workspace.js";
import { ShadowRepository, workspaceId } from "./shadow-repository.js";

const created: string[] = [];
afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function setUp() {
  const root = await mkdtemp(join(tmpdir(), "gyre-checkpoints-"));
  created.push(root);
  const [workspace, gyreHome, markers] = ["project", "home", "markers"].map((name) => join(root, name)) as [
    string,
    string,
    string,
  ];
  await Promise.all([workspace, gyreHome, markers].map((dir) => mkdir(dir)));
  createProject(workspace, markers);
  return { workspace, gyreHome, markers };
}

/** The changes an agent typically makes: edits, a sed -i, rm, a rename, new files, mode and link changes. */
async function mutate(workspace: string): Promise<void> {
  await writeFile(join(workspace, "crlf.txt"), "one\ntwo changed\n");
  execFileSync("sh", ["-c", "sed -i 's/hi/bye/' run.sh && rm doomed.txt && chmod -x run.sh"], { cwd: workspace });
  await writeFile(join(workspace, "bom.txt"), "no bom now\n");
  await rename(join(workspace, "src", "deep", "old-name.ts"), join(workspace, "src", "new-name.ts"));
  await mkdir(join(workspace, "generated", "nested"), { recursive: true });
  await writeFile(join(workspace, "generated", "nested", "out.js"), "made by the agent\n");
  await unlink(join(workspace, "link-to-main"));
  await symlink("crlf.txt", join(workspace, "link-to-main"));
  await writeFile(join(workspace, "ignored.log"), "changed, but ignored\n");
}

describe("ShadowRepository", () => {
  it("restores edits, sed -i, rm, renames, new files, modes and symlinks byte for byte", async () => {
    const { workspace, gyreHome } = await setUp();
    const before = pictureOf(workspace, { skip: [".git", "ignored.log"] });
    const repository = await ShadowRepository.open({ gyreHome, workspace });
    const checkpoint = await repository.snapshot();
    await mutate(workspace);
    expect(pictureOf(workspace, { skip: [".git", "ignored.log"] })).not.toEqual(before);

    const current = await repository.snapshot();
    const plan = await repository.planRestore(checkpoint, current);
    expect(plan.changes.map((change) => `${change.status} ${change.path}`).sort()).toEqual([
      "added doomed.txt",
      "added src/deep/old-name.ts",
      "deleted generated/nested/out.js",
      "deleted src/new-name.ts",
      "modified bom.txt",
      "modified crlf.txt",
      "modified link-to-main",
      "modified run.sh",
    ]);
    await repository.restore(plan.changes);

    expect(pictureOf(workspace, { skip: [".git", "ignored.log"] })).toEqual(before);
    expect(await readlink(join(workspace, "link-to-main"))).toBe("src/main.ts");
    expect(existsSync(join(workspace, "generated"))).toBe(false);
    expect(await readdir(join(workspace, "src", "deep"))).toEqual(["old-name.ts"]);
    // Ignored files are outside every snapshot: the restore leaves them as they are.
    expect(await readFile(join(workspace, "ignored.log"), "utf8")).toBe("changed, but ignored\n");
  });

  it("includes nested git repositories as plain files and leaves their .git alone", async () => {
    const { workspace, gyreHome } = await setUp();
    const lib = join(workspace, "vendor", "lib");
    const deeper = join(lib, "deeper");
    await mkdir(deeper, { recursive: true });
    for (const dir of [lib, deeper]) execFileSync("git", ["init", "-q"], { cwd: dir });
    await writeFile(join(lib, "lib.js"), "export const lib = 1;\n");
    await writeFile(join(lib, ".gitignore"), "build/\n");
    await mkdir(join(lib, "build"));
    await writeFile(join(lib, "build", "out.js"), "ignored by the nested repository\n");
    await writeFile(join(deeper, "deep.txt"), "two levels down\n");
    const skip = [".git", "ignored.log", "vendor/lib/.git", "vendor/lib/deeper/.git", "vendor/lib/build"];
    const before = pictureOf(workspace, { skip });
    const nestedGit = [hashDirectory(join(lib, ".git")), hashDirectory(join(deeper, ".git"))];
    const repository = await ShadowRepository.open({ gyreHome, workspace });
    const checkpoint = await repository.snapshot();
    expect(checkpoint.skipped).toEqual([]);

    await writeFile(join(lib, "lib.js"), "changed\n");
    await writeFile(join(lib, "new.js"), "added\n");
    await unlink(join(deeper, "deep.txt"));
    await writeFile(join(lib, "build", "out.js"), "changed but ignored\n");
    const current = await repository.snapshot();
    const plan = await repository.planRestore(checkpoint, current);
    expect(plan.changes.map((change) => `${change.status} ${change.path}`).sort()).toEqual([
      "added vendor/lib/deeper/deep.txt",
      "deleted vendor/lib/new.js",
      "modified vendor/lib/lib.js",
    ]);
    await repository.restore(plan.changes);
    expect(pictureOf(workspace, { skip })).toEqual(before);
    expect([hashDirectory(join(lib, ".git")), hashDirectory(join(deeper, ".git"))]).toEqual(nestedGit);
  });

  it("never touches the project's .git and never runs its hooks", async () => {
    const { workspace, gyreHome, markers } = await setUp();
    const gitBefore = hashDirectory(join(workspace, ".git"));
    const repository = await ShadowRepository.open({ gyreHome, workspace });
    const checkpoint = await repository.snapshot();
    await mutate(workspace);
    const current = await repository.snapshot();
    await repository.restore((await repository.planRestore(checkpoint, current)).changes);
    await repository.prune();
    expect(hashDirectory(join(workspace, ".git"))).toBe(gitBefore);
    expect(await readdir(markers)).toEqual([]);
    expect(repository.location.gitDir).toBe(join(gyreHome, "checkpoints", workspaceId(workspace), "git"));
  });

  it("skips a 200 MB sparse file and leaves it alone on restore", async () => {
    const { workspace, gyreHome } = await setUp();
    const big = join(workspace, "big.bin");
    await (await open(big, "w")).close();
    await truncate(big, 200 * 1024 * 1024);
    const repository = await ShadowRepository.open({ gyreHome, workspace });
    const checkpoint = await repository.snapshot();
    expect(checkpoint.skipped).toEqual([{ path: "big.bin", bytes: 200 * 1024 * 1024, reason: "file_too_large" }]);
    await rm(big);
    await writeFile(join(workspace, "crlf.txt"), "changed\n");
    const current = await repository.snapshot();
    const plan = await repository.planRestore(checkpoint, current);
    expect(plan.changes.map((change) => change.path)).toEqual(["crlf.txt"]);
    await repository.restore(plan.changes);
    expect(existsSync(big)).toBe(false);
    expect(await repository.diskUse()).toBeLessThan(1024 * 1024);
  });

  it("skips the largest files beyond the per-snapshot cap", async () => {
    const { workspace, gyreHome } = await setUp();
    await writeFile(join(workspace, "a.bin"), Buffer.alloc(3000, 1));
    await writeFile(join(workspace, "b.bin"), Buffer.alloc(6000, 2));
    const repository = await ShadowRepository.open({
      gyreHome,
      workspace,
      limits: { maxSnapshotBytes: 4000, maxFileBytes: 10_000 },
    });
    const snapshot = await repository.snapshot();
    expect(snapshot.skipped).toEqual([{ path: "b.bin", bytes: 6000, reason: "snapshot_too_large" }]);
    expect(snapshot.changed).toContain("a.bin");
  });

  it("prunes the least recently recorded snapshots beyond the disk cap", async () => {
    const { workspace, gyreHome } = await setUp();
    const repository = await ShadowRepository.open({
      gyreHome,
      workspace,
      limits: { maxRepositoryBytes: 300 * 1024, maxFileBytes: 1024 * 1024 },
    });
    const trees: string[] = [];
    for (let round = 0; round < 6; round++) {
      // Random bytes do not compress, so each snapshot adds ~100 KB.
      await writeFile(join(workspace, "data.bin"), execFileSync("head", ["-c", "102400", "/dev/urandom"]));
      trees.push((await repository.snapshot()).tree);
    }
    expect(await repository.diskUse()).toBeGreaterThan(300 * 1024);
    const dropped = await repository.prune();
    expect(await repository.diskUse()).toBeLessThanOrEqual(300 * 1024);
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped).toEqual(trees.slice(0, dropped.length));
    expect(await repository.hasTree(trees[0] as string)).toBe(false);
    expect(await repository.hasTree(trees[5] as string)).toBe(true);
  });

  it("records an unchanged work tree as the same tree", async () => {
    const { workspace, gyreHome } = await setUp();
    const repository = await ShadowRepository.open({ gyreHome, workspace });
    const first = await repository.snapshot();
    const second = await repository.snapshot();
    expect(second.tree).toBe(first.tree);
    expect(second.changed).toEqual([]);
    await chmod(join(workspace, "crlf.txt"), 0o755);
    expect((await repository.snapshot()).changed).toEqual(["crlf.txt"]);
  });
  it("records just the named paths of a snapshot and still reports what the last one skipped", async () => {
    const { workspace, gyreHome } = await setUp();
    await writeFile(join(workspace, "big.bin"), Buffer.alloc(4000, 1));
    const repository = await ShadowRepository.open({ gyreHome, workspace, limits: { maxFileBytes: 3000 } });
    await repository.snapshot();
    await writeFile(join(workspace, "crlf.txt"), "named\r\n");
    await writeFile(join(workspace, "src", "made[1].ts"), "new\n");
    await writeFile(join(workspace, "src", "made1.ts"), "not named, though the glob would match it\n");
    await rm(join(workspace, "doomed.txt"));
    await writeFile(join(workspace, "bom.txt"), "changed, but not named\n");
    await writeFile(join(workspace, "ignored.log"), "named, but ignored\n");
    const named = await repository.snapshot({
      paths: ["crlf.txt", "src/made[1].ts", "doomed.txt", "ignored.log", "missing.txt"],
    });
    expect(named.changed).toEqual(["crlf.txt", "doomed.txt", "src/made[1].ts"]);
    expect(named.skipped).toEqual([{ path: "big.bin", bytes: 4000, reason: "file_too_large" }]);
    expect((await repository.snapshot({ paths: [] })).tree).toBe(named.tree);
    const full = await repository.snapshot();
    expect(full.changed).toEqual(["bom.txt", "src/made1.ts"]);
    const listed = (await repository.diff(named.tree, full.tree)).map(({ path, status }) => `${status} ${path}`);
    expect(listed.sort()).toEqual(["added src/made1.ts", "modified bom.txt"]);
  });
  it("records named files with one git add, no listing, and falls back where a path needs it", async () => {
    const { workspace, gyreHome } = await setUp();
    const log = join(gyreHome, "git-calls.log");
    const gitBinary = join(gyreHome, "logging-git");
    await writeFile(
      gitBinary,
      `#!/bin/sh\nfor a in "$@"; do case "$a" in -c|*=*) ;; *) echo "$a" >> '${log}'; break;; esac; done\nexec git "$@"\n`,
    );
    await chmod(gitBinary, 0o755);
    await writeFile(join(workspace, "big.bin"), "small at first\n");
    const repository = await ShadowRepository.open({ gyreHome, workspace, gitBinary, limits: { maxFileBytes: 3000 } });
    const first = await repository.snapshot();
    await writeFile(log, "");
    await writeFile(join(workspace, "crlf.txt"), "named\r\n");
    await writeFile(join(workspace, "src", "made[1].ts"), "new\n");
    await writeFile(join(workspace, "src", "made1.ts"), "not named, though the glob would match it\n");
    await writeFile(join(workspace, "ignored.log"), "named, but ignored\n");
    await writeFile(join(workspace, "big.bin"), Buffer.alloc(4000, 1));
    const named = await repository.snapshot({
      paths: ["crlf.txt", "src/made[1].ts", "ignored.log", "bom.txt", "big.bin"],
    });
    expect((await readFile(log, "utf8")).split("\n").filter(Boolean)).toEqual(["add", "update-index", "write-tree"]);
    expect(named.changed).toEqual(["crlf.txt", "src/made[1].ts"]);
    expect(named.skipped).toEqual([{ path: "big.bin", bytes: 4000, reason: "file_too_large" }]);
    const listed = (await repository.diff(first.tree, named.tree)).map(({ path, status }) => `${status} ${path}`);
    expect(listed.sort()).toEqual(["added src/made[1].ts", "deleted big.bin", "modified crlf.txt"]);
    // Nothing changed: the index is left as it was and its tree reused.
    await writeFile(log, "");
    expect((await repository.snapshot({ paths: ["crlf.txt"] })).tree).toBe(named.tree);
    expect((await readFile(log, "utf8")).split("\n").filter(Boolean)).toEqual(["add"]);
    // A file in a nested repository, and a path that no longer exists, take the listing route.
    const lib = join(workspace, "vendor", "lib");
    await mkdir(lib, { recursive: true });
    execFileSync("git", ["init", "-q"], { cwd: lib, env: { PATH: process.env.PATH ?? "" } });
    await writeFile(join(lib, "inner.ts"), "inside a nested repository\n");
    await rm(join(workspace, "doomed.txt"));
    await writeFile(log, "");
    const fallback = await repository.snapshot({ paths: ["vendor/lib/inner.ts", "doomed.txt"] });
    expect(await readFile(log, "utf8")).toContain("diff-files");
    expect(fallback.changed).toEqual(["doomed.txt", "vendor/lib/inner.ts"]);
  });
  it("records the tree of the index as another gyre in the same workspace left it", async () => {
    const { workspace, gyreHome } = await setUp();
    const one = await ShadowRepository.open({ gyreHome, workspace });
    const other = await ShadowRepository.open({ gyreHome, workspace });
    const first = await one.snapshot();
    expect((await one.snapshot()).tree).toBe(first.tree);
    await writeFile(join(workspace, "crlf.txt"), "changed while the other gyre ran\n");
    const byOther = await other.snapshot();
    expect(byOther.tree).not.toBe(first.tree);
    // Nothing differs from the index any more, but the index is no longer the one `one` wrote.
    const again = await one.snapshot();
    expect(again.changed).toEqual([]);
    expect(again.tree).toBe(byOther.tree);
  });
});

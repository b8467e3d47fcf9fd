import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { privateTmpBinds, withReadOnlyBinds } from "./private-tmp-binds.js";

let root = "";
beforeEach(async () => {
  // Under /tmp itself, whatever TMPDIR says: the private /tmp is what these binds are for.
  root = await mkdtemp("/tmp/gyre-binds-");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("privateTmpBinds", () => {
  it("keeps an npm prefix's bin link and the node_modules it points into", async () => {
    const cli = join(root, "prefix/lib/node_modules/server/lib/cli.mjs");
    await mkdir(join(root, "prefix/lib/node_modules/server/lib"), { recursive: true });
    await mkdir(join(root, "prefix/bin"));
    await writeFile(cli, "");
    await symlink("../lib/node_modules/server/lib/cli.mjs", join(root, "prefix/bin/server"));
    expect(await privateTmpBinds([join(root, "prefix/bin/server"), "--stdio"])).toEqual([
      join(root, "prefix/bin"),
      join(root, "prefix/lib/node_modules"),
    ]);
  });

  it("binds the outermost node_modules of a path argument once, and nothing outside /tmp", async () => {
    const nested = join(root, "repo/node_modules/a/node_modules/b/cli.js");
    expect(
      await privateTmpBinds(["/usr/bin/node", nested, join(root, "repo/node_modules/c/x.js"), "relative/path"]),
    ).toEqual([join(root, "repo/node_modules")]);
  });
});

describe("withReadOnlyBinds", () => {
  it("puts the binds right after the private /tmp, before any later mask", () => {
    const args = ["--ro-bind", "/", "/", "--tmpfs", "/tmp", "--tmpfs", "/home/u/.ssh", "--"];
    expect(withReadOnlyBinds(args, ["/tmp/p/bin"])).toEqual([
      "--ro-bind",
      "/",
      "/",
      "--tmpfs",
      "/tmp",
      "--ro-bind",
      "/tmp/p/bin",
      "/tmp/p/bin",
      "--tmpfs",
      "/home/u/.ssh",
      "--",
    ]);
    expect(withReadOnlyBinds(args, [])).toEqual(args);
  });
});

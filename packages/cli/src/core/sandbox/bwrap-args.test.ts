import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildBwrapArgs, expandPath } from "./bwrap-args.js";
import type { SandboxPolicy } from "./types.js";

let root: string;
let policy: SandboxPolicy;
beforeEach(async () => {
  root = await realpath(await mkdtemp("/var/tmp/gyre-args-"));
  await mkdir(join(root, "home", ".gyre"), { recursive: true });
  await mkdir(join(root, "proj", ".git", "hooks"), { recursive: true });
  await writeFile(join(root, "proj", ".git", "config"), "");
  policy = {
    mode: "workspace-write",
    cwd: join(root, "proj"),
    writableRoots: [],
    protectedPaths: [],
    denyRead: [],
    network: false,
    gyreHome: join(root, "home", ".gyre"),
    homeDir: join(root, "home"),
    hostEnv: {},
    maxProcesses: 100,
    maxMemoryMb: 100,
  };
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** The pairs `flag a b` of an argument list. */
function mounts(args: string[], flag: string): string[] {
  return args.flatMap((arg, index) => (arg === flag ? [args[index + 1] ?? ""] : []));
}

describe("buildBwrapArgs", () => {
  it("starts the command in the policy's cwd, or in the folder asked for, with one --chdir", async () => {
    expect(mounts((await buildBwrapArgs(policy)).args, "--chdir")).toEqual([join(root, "proj")]);
    await mkdir(join(root, "proj", "sub"));
    const readOnly = await buildBwrapArgs({ ...policy, mode: "read-only" }, { chdir: join(root, "proj", "sub") });
    expect(mounts(readOnly.args, "--chdir")).toEqual([join(root, "proj", "sub")]);
    expect(mounts(readOnly.args, "--ro-bind")).toContain(join(root, "proj"));
    expect(mounts(readOnly.args, "--bind")).toEqual([]);
  });

  it("mounts / read-only, the workspace writable and its protected paths read-only over it", async () => {
    const plan = await buildBwrapArgs(policy);
    expect(plan.args.slice(plan.args.indexOf("--ro-bind"), plan.args.indexOf("--ro-bind") + 3)).toEqual([
      "--ro-bind",
      "/",
      "/",
    ]);
    expect(mounts(plan.args, "--bind")).toEqual([join(root, "proj")]);
    expect(plan.protectedPaths).toEqual([
      join(root, "proj", ".git"),
      join(root, "proj", ".gyre"),
      join(root, "proj", ".mcp.json"),
    ]);
    expect(plan.args).toContain("--unshare-net");
    expect(plan.args).toContain("--die-with-parent");
    expect(plan.args.slice(-2)).toEqual(["--chdir", join(root, "proj")]);
  });

  it("creates missing protected directories as mount points and says so", async () => {
    const plan = await buildBwrapArgs(policy);
    expect(plan.createdMountPoints).toEqual([join(root, "proj", ".gyre"), join(root, "proj", ".mcp.json")]);
    expect(await readdir(join(root, "proj"))).toContain(".gyre");
  });

  it("takes over the empty mount points a killed gyre left, so they go when this sandbox ends", async () => {
    await buildBwrapArgs(policy); // made the mount points; a kill -9 would leave them behind
    const again = await buildBwrapArgs(policy);
    expect(again.createdMountPoints).toEqual([join(root, "proj", ".gyre"), join(root, "proj", ".mcp.json")]);
    await writeFile(join(root, "proj", ".gyre", "settings.json"), "{}");
    const withSettings = await buildBwrapArgs(policy);
    expect(withSettings.createdMountPoints).toEqual([join(root, "proj", ".mcp.json")]);
  });

  it("protects the canonical path of a protected path reached through a symlink", async () => {
    await mkdir(join(root, "proj", "real-config"));
    await symlink(join(root, "proj", "real-config"), join(root, "proj", "cfg"));
    const plan = await buildBwrapArgs({ ...policy, protectedPaths: ["cfg"] });
    expect(plan.protectedPaths).toContain(join(root, "proj", "real-config"));
  });

  it("protects GYRE_HOME and rc files when the workspace is the home directory", async () => {
    await writeFile(join(root, "home", ".bashrc"), "");
    const plan = await buildBwrapArgs({ ...policy, cwd: join(root, "home") });
    expect(plan.protectedPaths).toEqual(
      expect.arrayContaining([join(root, "home", ".gyre"), join(root, "home", ".bashrc")]),
    );
  });

  it("makes nothing but /tmp writable in read-only mode and keeps the network when allowed", async () => {
    const plan = await buildBwrapArgs({ ...policy, mode: "read-only", network: true });
    expect(mounts(plan.args, "--bind")).toEqual([]);
    expect(plan.args).not.toContain("--unshare-net");
    expect(plan.createdMountPoints).toEqual([]);
  });

  it("masks denyRead directories with a tmpfs and files with /dev/null", async () => {
    await mkdir(join(root, "home", ".ssh"));
    await writeFile(join(root, "proj", ".env"), "");
    const plan = await buildBwrapArgs({ ...policy, denyRead: ["~/.ssh", ".env", "missing"] });
    expect(mounts(plan.args, "--tmpfs")).toContain(join(root, "home", ".ssh"));
    const index = plan.args.indexOf(join(root, "proj", ".env"));
    expect(plan.args.slice(index - 2, index + 1)).toEqual(["--ro-bind", "/dev/null", join(root, "proj", ".env")]);
  });
});

describe("expandPath", () => {
  it("expands ~ and resolves relative paths against the workspace", () => {
    expect(expandPath("~/.ssh", { cwd: "/w", homeDir: "/h" })).toBe("/h/.ssh");
    expect(expandPath(".env", { cwd: "/w", homeDir: "/h" })).toBe("/w/.env");
    expect(expandPath("/a/../b", { cwd: "/w", homeDir: "/h" })).toBe("/b");
  });
});

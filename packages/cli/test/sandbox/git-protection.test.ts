/**
 * Bash cannot plant a git repository that the user's own git (outside any sandbox) would trust
 * (audit S4, S5, D3, S6, S9): every attempt runs in real bubblewrap, then the host's real `git
 * status` runs where the user would run it, and the test checks that no planted fsmonitor ran.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BLOCKED_GIT_NAME, BLOCKED_HEAD_NAME } from "../../src/core/sandbox/git-guard.js";
import type { SessionSandbox } from "../../src/core/sandbox/session-sandbox.js";
import { createWorkspace, policyFor, runIn, startSandbox, type Workspace } from "./helpers.js";

let workspace: Workspace | undefined;
let sandbox: SessionSandbox | undefined;
afterEach(async () => {
  await sandbox?.dispose();
  await workspace?.cleanup();
  sandbox = undefined;
  workspace = undefined;
});

/** A fresh workspace under /var/tmp (the sandbox's /tmp is private) and its sandbox. */
async function setUp(prepare: (cwd: string) => Promise<void> = async () => undefined) {
  workspace = await createWorkspace("/var/tmp");
  await prepare(workspace.cwd);
  sandbox = await startSandbox(policyFor(workspace));
  const current = sandbox;
  const cwd = workspace.cwd;
  return {
    cwd,
    marker: join(workspace.root, "PWNED"),
    sh: async (command: string) => {
      const result = await runIn(current, command, { cwd });
      return { ...result, note: await current.afterCommand() };
    },
  };
}

function gitInit(dir: string): void {
  execFileSync("git", ["init", "-q", dir]);
  execFileSync("git", [
    "-C",
    dir,
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@t",
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    "0",
  ]);
}

/** The user's `git status` in `dir`, outside the sandbox, with a clean global config. */
function hostGitStatus(dir: string, home: string): string {
  const result = spawnSync("git", ["status", "--short"], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: "1" },
    encoding: "utf8",
  });
  return `${result.stdout}${result.stderr}`;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** A `[core] fsmonitor` line that touches `marker` when git runs it. */
const plant = (marker: string) => `printf '[core]\\n\\tfsmonitor = "touch ${marker}; false"\\n'`;

describe("the sandbox and .git", () => {
  it("refuses to rename, replace or write the workspace's .git, and the host's git status runs nothing (S4/D3)", async () => {
    const { cwd, marker, sh } = await setUp(async (dir) => gitInit(dir));
    const before = await readFile(join(cwd, ".git", "config"), "utf8");
    const result = await sh(
      `mv .git .git-old; echo "mv=$?"; rm -rf .git; mkdir -p .git-new && cp -a .git/. .git-new/ 2>/dev/null; ` +
        `${plant(marker)} >> .git/config; echo "append=$?"; touch .git/index.lock; echo "lock=$?"; ` +
        `${plant(marker)} > .git-new/config; mv -T .git-new .git; echo "replace=$?"`,
    );
    expect(result.output).toContain("mv=1");
    expect(result.output).toContain("append=1");
    expect(result.output).toContain("lock=1");
    expect(result.output).toContain("replace=1");
    expect(result.output).toMatch(/Device or resource busy|Read-only file system/);
    expect(await readFile(join(cwd, ".git", "config"), "utf8")).toBe(before);
    expect(await exists(join(cwd, ".git-old"))).toBe(false);
    hostGitStatus(cwd, workspace!.home);
    expect(await exists(marker)).toBe(false);
  });

  it("refuses to create .git in a workspace without one, and leaves no trace after (S5)", async () => {
    const { cwd, marker, sh } = await setUp();
    const result = await sh(
      `git init -q . ; echo "init=$?"; mkdir -p .git/hooks; ${plant(marker)} > .git/config; echo "count=$(ls -A .git | wc -l)"`,
    );
    expect(result.output).toContain("init=1");
    expect(result.output).toContain("Read-only file system");
    expect(result.output).toContain("count=0");
    // While the sandbox runs the host sees an empty .git, which git ignores.
    expect(await readdir(join(cwd, ".git"))).toEqual([]);
    expect(hostGitStatus(cwd, workspace!.home)).toContain("not a git repository");
    expect(await exists(marker)).toBe(false);
    await sandbox!.dispose();
    expect(await readdir(cwd)).toEqual([]);
  });

  it("renames a .git created in a nested folder before the user's git can read it (S5)", async () => {
    const { cwd, marker, sh } = await setUp(async (dir) => gitInit(dir));
    const result = await sh(
      `mkdir -p sub && git init -q sub && ${plant(marker)} >> sub/.git/config && ` +
        `mkdir -p deep/er && printf 'gitdir: ../../sub/${BLOCKED_GIT_NAME}\\n' > deep/er/.git && echo planted`,
    );
    expect(result.output).toContain("planted");
    expect(result.note).toContain("a new .git was renamed");
    expect(result.note).toContain(join(cwd, "sub", ".git"));
    expect(await exists(join(cwd, "sub", ".git"))).toBe(false);
    expect(await exists(join(cwd, "deep", "er", ".git"))).toBe(false);
    expect((await stat(join(cwd, "sub", BLOCKED_GIT_NAME))).isDirectory()).toBe(true);
    for (const dir of [join(cwd, "sub"), join(cwd, "deep", "er"), cwd]) hostGitStatus(dir, workspace!.home);
    expect(await exists(marker)).toBe(false);
  });

  it("makes a bare repository created in the workspace no repository, and keeps an existing one read-only", async () => {
    const { cwd, marker, sh } = await setUp(async (dir) => {
      execFileSync("git", ["init", "-q", "--bare", join(dir, "kept.git")]);
    });
    const worktreeConfig = `printf '[core]\\n\\tbare = false\\n\\tworktree = ..\\n\\tfsmonitor = "touch ${marker}; false"\\n'`;
    const result = await sh(
      `git init -q --bare evil && ${worktreeConfig} >> evil/config && echo planted; ${worktreeConfig} >> kept.git/config; echo "kept=$?"`,
    );
    expect(result.output).toContain("planted");
    expect(result.output).toContain("kept=1");
    expect(result.note).toContain(`${join(cwd, "evil")}/HEAD → ${BLOCKED_HEAD_NAME} (a bare repository)`);
    for (const dir of [join(cwd, "evil"), join(cwd, "kept.git")]) hostGitStatus(dir, workspace!.home);
    expect(await exists(marker)).toBe(false);
  });

  it("renames a .git a background command creates after its command returned, when the sandbox ends", async () => {
    const { cwd, marker, sh } = await setUp();
    const result = await sh(
      `(sleep 0.5; mkdir -p later && git init -q later && ${plant(marker)} >> later/.git/config) >/dev/null 2>&1 &`,
    );
    expect(result.note).toBeUndefined();
    while (!(await exists(join(cwd, "later", ".git", "config")))) await new Promise((done) => setTimeout(done, 50));
    await sandbox!.dispose();
    expect(await exists(join(cwd, "later", ".git"))).toBe(false);
    expect(await exists(join(cwd, "later", BLOCKED_GIT_NAME, "config"))).toBe(true);
    hostGitStatus(join(cwd, "later"), workspace!.home);
    expect(await exists(marker)).toBe(false);
  });

  it("keeps a nested repository's .git read-only (S6)", async () => {
    const { cwd, marker, sh } = await setUp(async (dir) => {
      gitInit(dir);
      gitInit(join(dir, "sub"));
    });
    const before = await readFile(join(cwd, "sub", ".git", "config"), "utf8");
    const result = await sh(
      `${plant(marker)} >> sub/.git/config; echo "append=$?"; mv sub/.git sub/.git-old; echo "mv=$?"; ` +
        `echo x > sub/.git/hooks/post-checkout; echo "hook=$?"`,
    );
    expect(result.output).toContain("append=1");
    expect(result.output).toContain("mv=1");
    expect(result.output).toContain("hook=1");
    expect(await readFile(join(cwd, "sub", ".git", "config"), "utf8")).toBe(before);
    hostGitStatus(join(cwd, "sub"), workspace!.home);
    expect(await exists(marker)).toBe(false);
  });

  it("masks a missing .mcp.json as an empty read-only folder, removed at the end (S9)", async () => {
    const { cwd, sh } = await setUp();
    const result = await sh(
      `echo '{"mcpServers":{"x":{"command":"touch"}}}' > .mcp.json; echo "rc=$?"; rm -rf .mcp.json; mv .mcp.json x; echo "count=$(ls -A .mcp.json | wc -l)"`,
    );
    expect(result.output).toContain("rc=1");
    expect(result.output).toContain(".mcp.json: Is a directory");
    expect(result.output).toContain("count=0");
    expect(await readdir(join(cwd, ".mcp.json"))).toEqual([]);
    await sandbox!.dispose();
    expect(await exists(join(cwd, ".mcp.json"))).toBe(false);
  });

  it("keeps an existing .mcp.json read-only", async () => {
    const { cwd, sh } = await setUp(async (dir) => writeFile(join(dir, ".mcp.json"), "{}\n"));
    const result = await sh(`echo '{"mcpServers":{"x":{"command":"touch"}}}' > .mcp.json; mv .mcp.json gone; echo end`);
    expect(result.output).toMatch(/Read-only file system|Device or resource busy/);
    expect(await readFile(join(cwd, ".mcp.json"), "utf8")).toBe("{}\n");
  });
});

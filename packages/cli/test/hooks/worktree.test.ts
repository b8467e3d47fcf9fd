import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { worktreesDir } from "../../src/core/worktree/worktrees.js";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

const gitEnv = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };

/** A real repository with one commit, user hooks that record WorktreeCreate/WorktreeRemove, and a faux script that writes a file. */
async function repository() {
  const { cwd, home } = await createWorkspace();
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd, env: { ...process.env, ...gitEnv, HOME: home }, encoding: "utf8" });
  git("init", "-q", "-b", "main");
  await writeFile(join(cwd, "README.md"), "hello\n");
  git("add", ".");
  git("commit", "-q", "-m", "first");
  const record = (event: string) => [{ hooks: [{ type: "command", command: `cat > "$GYRE_HOME/${event}.json"` }] }];
  await writeFile(
    join(home, "settings.json"),
    JSON.stringify({ hooks: { WorktreeCreate: record("created"), WorktreeRemove: record("removed") } }),
  );
  const script = join(home, "script.json");
  const write = { type: "toolCall", name: "write", arguments: { path: "feature.txt", content: "new work\n" } };
  await writeFile(script, JSON.stringify([{ content: [write] }, { content: [{ type: "text", text: "written" }] }]));
  const env = cliEnv(home, gitEnv);
  return { cwd, home, git, env, faux: ["--provider", "faux", "--faux-script", script] };
}

describe("gyre -w", () => {
  it("runs the session in a new worktree on branch gyre/<name>, keeps it, lists and removes it", async () => {
    const { cwd, home, git, env, faux } = await repository();
    const run = await runCli(["-p", "--worktree=feature", ...faux, "add the feature"], { cwd, env });
    expect(run.code).toBe(0);
    const path = join(worktreesDir(cwd), "feature");
    expect(run.stderr).toContain(`working in worktree ${path} (branch gyre/feature)`);
    expect(await readFile(join(path, "feature.txt"), "utf8")).toBe("new work\n");
    expect(existsSync(join(cwd, "feature.txt"))).toBe(false);
    expect(git("branch", "--list", "gyre/feature")).toContain("gyre/feature");
    const created = JSON.parse(await readFile(join(home, "created.json"), "utf8"));
    expect(created).toMatchObject({ hook_event_name: "WorktreeCreate", name: "feature", worktree_path: path });

    const listed = await runCli(["worktree", "list"], { cwd, env });
    expect(listed.stdout).toBe(`feature\tgyre/feature\t${path}\n`);

    const again = await runCli(["-p", "--worktree=feature", ...faux, "again"], { cwd, env });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("Could not add the worktree feature");

    // Rewind works inside the worktree: its session and checkpoints are the worktree's.
    // (--mode json: a rewind without a terminal; the faux flags: the session's model is the faux one.)
    const rewind = ["--mode", "json", ...faux, "-c", "--rewind"];
    const points = await runCli([...rewind, "list"], { cwd: path, env });
    expect(points.code).toBe(0);
    const [point] = points.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { entryId: string });
    const rewound = await runCli([...rewind, point?.entryId ?? "", "--restore", "code"], { cwd: path, env });
    expect(rewound.code).toBe(0);
    expect(existsSync(join(path, "feature.txt"))).toBe(false);

    // Uncommitted work keeps git from removing it, unless --force.
    await writeFile(join(path, "stray.txt"), "uncommitted\n");
    const refused = await runCli(["worktree", "remove", "feature"], { cwd, env });
    expect(refused.code).toBe(1);
    expect(existsSync(path)).toBe(true);
    const removed = await runCli(["worktree", "remove", "feature", "--force"], { cwd, env });
    expect(removed.code).toBe(0);
    expect(existsSync(path)).toBe(false);
    expect(git("branch", "--list", "gyre/feature")).toContain("gyre/feature");
    const hook = JSON.parse(await readFile(join(home, "removed.json"), "utf8"));
    expect(hook).toMatchObject({ hook_event_name: "WorktreeRemove", name: "feature", branch: "gyre/feature" });
  });

  it("takes the name as the word after -w or --worktree, refuses one git cannot use, and works from inside a worktree", async () => {
    const { cwd, git, env, faux } = await repository();
    const named = await runCli(["-p", "-w", "auth", ...faux, "add auth"], { cwd, env });
    expect(named.code).toBe(0);
    const auth = join(worktreesDir(cwd), "auth");
    expect(named.stderr).toContain(`working in worktree ${auth} (branch gyre/auth)`);
    expect(await readFile(join(auth, "feature.txt"), "utf8")).toBe("new work\n");

    const bad = await runCli(["-p", "-w", "fix the bug", ...faux], { cwd, env });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(
      /^gyre: "fix the bug" cannot name a worktree: .*; .* put a prompt after -- instead\.$/,
    );
    const refused = await runCli(["-p", "--worktree", "x.lock", ...faux, "go"], { cwd, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('"x.lock" cannot name a worktree: git refuses');
    expect(git("branch", "--list", "gyre/*").trim().split("\n")).toHaveLength(1);

    // From inside the worktree: the next one goes beside the main checkout, and list shows both.
    const nested = await runCli(["-p", "--worktree", "second", ...faux, "more"], { cwd: auth, env });
    expect(nested.code).toBe(0);
    const second = join(worktreesDir(cwd), "second");
    expect(existsSync(join(second, "feature.txt"))).toBe(true);
    const listed = await runCli(["worktree", "list"], { cwd: auth, env });
    expect(listed.stdout).toBe(`auth\tgyre/auth\t${auth}\nsecond\tgyre/second\t${second}\n`);
    const removed = await runCli(["worktree", "remove", "second", "--force"], { cwd: auth, env });
    expect(removed.code).toBe(0);
    expect(existsSync(second)).toBe(false);
    const unknown = await runCli(["worktree", "remove", "nope"], { cwd, env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No gyre worktree is named nope");
  });

  it("generates a name for a bare -w, and refuses outside a repository", async () => {
    const { cwd, env, faux } = await repository();
    const run = await runCli(["-p", "-w", ...faux, "go"], { cwd, env });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/branch gyre\/\d{8}-[0-9a-f]{6}\)/);
    const outside = await createWorkspace();
    const refused = await runCli(["-p", "-w", ...faux, "go"], { cwd: outside.cwd, env: cliEnv(outside.home) });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("is not inside a git repository");
  });

  it("runs the hooks a session here would: Claude's with --claude-compat, the project's only once trusted", async () => {
    const { cwd, home, env, faux } = await repository();
    const record = (file: string) => [{ hooks: [{ type: "command", command: `cat > "$GYRE_HOME/${file}.json"` }] }];
    await mkdir(join(home, ".claude"), { recursive: true });
    await writeFile(
      join(home, ".claude", "settings.json"),
      JSON.stringify({ hooks: { WorktreeCreate: record("claude-user") } }),
    );
    await mkdir(join(cwd, ".claude"), { recursive: true });
    await writeFile(
      join(cwd, ".claude", "settings.json"),
      JSON.stringify({ hooks: { WorktreeCreate: record("claude-project") } }),
    );
    await mkdir(join(cwd, ".gyre"), { recursive: true });
    await writeFile(
      join(cwd, ".gyre", "settings.json"),
      JSON.stringify({ hooks: { WorktreeRemove: record("gyre-project") } }),
    );

    const plain = await runCli(["-p", "-w", "plain", ...faux, "go"], { cwd, env });
    expect(plain.code).toBe(0);
    expect(existsSync(join(home, "claude-user.json"))).toBe(false);

    const untrusted = await runCli(["-p", "-w", "untrusted", "--claude-compat", ...faux, "go"], { cwd, env });
    expect(untrusted.code).toBe(0);
    const user = JSON.parse(await readFile(join(home, "claude-user.json"), "utf8"));
    expect(user).toMatchObject({ hook_event_name: "WorktreeCreate", name: "untrusted" });
    expect(existsSync(join(home, "claude-project.json"))).toBe(false);

    const trusted = await runCli(["-p", "-w", "trusted", "--claude-compat", "--trust", ...faux, "go"], { cwd, env });
    expect(trusted.code).toBe(0);
    const project = JSON.parse(await readFile(join(home, "claude-project.json"), "utf8"));
    expect(project).toMatchObject({ hook_event_name: "WorktreeCreate", name: "trusted" });

    // `gyre worktree remove` has no --trust: an untrusted folder's .gyre hooks stay out.
    const removed = await runCli(["worktree", "remove", "plain", "--force"], { cwd, env });
    expect(removed.code).toBe(0);
    expect(existsSync(join(home, "gyre-project.json"))).toBe(false);
  });
});

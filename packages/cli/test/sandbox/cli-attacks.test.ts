/**
 * The audit's attacks from outside, through the real CLI: a scripted (faux) model makes the tool
 * calls that tried each bypass, under the default sandbox, and the test checks the host afterwards.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

type Call = { name: string; arguments: Record<string, unknown> };

/** Runs a scripted model making `calls`, one per turn, then "finished"; returns the tool results' texts in order. */
export async function attack(
  workspace: { cwd: string; home: string },
  calls: Call[],
  options: { settings?: object; env?: Record<string, string> } = {},
): Promise<{ results: string[]; sessionText: string; stdout: string; code: number | null }> {
  const script = join(workspace.home, "script.json");
  const responses = [
    ...calls.map((call) => ({ content: [{ type: "toolCall", ...call }] })),
    { content: [{ type: "text", text: "finished" }] },
  ];
  await writeFile(script, JSON.stringify(responses));
  if (options.settings) await writeFile(join(workspace.home, "settings.json"), JSON.stringify(options.settings));
  const result = await runCli(
    ["--mode", "json", "-p", "--provider", "faux", "--faux-script", script, "--tools", "read,grep,find,ls,bash", "go"],
    { cwd: workspace.cwd, env: cliEnv(workspace.home, options.env) },
  );
  const last = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as { sessionFile?: string };
  if (typeof last.sessionFile !== "string") throw new Error(`no result line: ${result.stderr}`);
  const sessionText = await readFile(last.sessionFile, "utf8");
  const results = sessionText
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: { text?: string }[] } })
    .filter((entry) => entry.message?.role === "toolResult")
    .map((entry) => (entry.message?.content ?? []).map((part) => part.text ?? "").join(""));
  return { results, sessionText, stdout: result.stdout, code: result.code };
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

function hostGitStatus(dir: string, home: string): void {
  spawnSync("git", ["status"], { cwd: dir, env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });
}

describe("gyre -p under the default sandbox, attacked through bash", () => {
  it("cannot plant an fsmonitor in .git, in a missing .git or in a nested one (S4/S5/S6)", async () => {
    const workspace = await createWorkspace();
    const { cwd, home } = workspace;
    execFileSync("git", ["init", "-q", cwd]);
    await mkdir(join(cwd, "nested"));
    execFileSync("git", ["init", "-q", join(cwd, "nested")]);
    await mkdir(join(cwd, "plain"));
    const marker = join(home, "PWNED");
    const plant = `printf '[core]\\n\\tfsmonitor = "touch ${marker}; false"\\n'`;
    const { results } = await attack(workspace, [
      { name: "bash", arguments: { command: `mv .git .git-old; mkdir .git; ${plant} > .git/config; echo done` } },
      { name: "bash", arguments: { command: `${plant} >> nested/.git/config; echo done` } },
      {
        name: "bash",
        arguments: { command: `cd plain && git init -q --template= . && ${plant} >> .git/config && echo planted` },
      },
    ]);
    expect(results[0]).toContain("Device or resource busy");
    expect(results[1]).toContain("Read-only file system");
    expect(results[2]).toContain("planted");
    expect(results[2]).toContain("a new .git was renamed");
    for (const dir of [cwd, join(cwd, "nested"), join(cwd, "plain")]) hostGitStatus(dir, home);
    expect(await exists(marker)).toBe(false);
    expect(await exists(join(cwd, ".git-old"))).toBe(false);
    expect(await exists(join(cwd, "plain", ".git"))).toBe(false);
  });

  it("cannot get around bash(touch:*) by a path or a wrapper (D20)", async () => {
    const workspace = await createWorkspace();
    const variants = [
      "/usr/bin/touch V_abs",
      "find . -maxdepth 0 -exec touch V_find \\;",
      "find . -maxdepth 0 -execdir /usr/bin/touch V_execdir {} +",
      "echo V_xargs | xargs /usr/bin/touch",
      "timeout 5 /usr/bin/touch V_timeout",
      "nice -n 1 touch V_nice",
      "nohup touch V_nohup",
      "/usr/bin/env touch V_env",
      "command /usr/bin/touch V_command",
    ];
    const { results } = await attack(
      workspace,
      variants.map((command) => ({ name: "bash", arguments: { command } })),
      { settings: { permissions: { deny: ["bash(touch:*)"] } } },
    );
    expect(results).toHaveLength(variants.length);
    for (const result of results) expect(result).toContain("Denied by the permission rules");
    for (const name of [
      "V_abs",
      "V_find",
      "V_execdir",
      "V_xargs",
      "V_timeout",
      "V_nice",
      "V_nohup",
      "V_env",
      "V_command",
    ])
      expect(await exists(join(workspace.cwd, name)), name).toBe(false);
  });

  it("keeps read(...)-denied files out of grep, find, ls and bash (S20)", async () => {
    const workspace = await createWorkspace();
    const { cwd } = workspace;
    await writeFile(join(cwd, ".env"), "ENVSECRET=1\n");
    await mkdir(join(cwd, "secrets", "deep"), { recursive: true });
    await writeFile(join(cwd, "secrets", "deep", "k"), "DEEPSECRET\n");
    await writeFile(join(cwd, "open.txt"), "SECRET-free text mentions SECRET\n");
    const { results } = await attack(
      workspace,
      [
        { name: "grep", arguments: { pattern: "SECRET" } },
        { name: "find", arguments: { pattern: "**" } },
        { name: "ls", arguments: {} },
        { name: "ls", arguments: { path: "secrets/deep" } },
        { name: "bash", arguments: { command: "cat .env secrets/deep/k; grep -r SECRET . ; echo end" } },
        { name: "read", arguments: { path: "./secrets//deep/k" } },
      ],
      { settings: { permissions: { deny: ["read(.env)", "read(secrets/**)"] } } },
    );
    const [grep, find, ls, lsDeep, bash, read] = results as [string, string, string, string, string, string];
    expect(grep).toContain("open.txt:1:");
    expect(find).toContain("open.txt");
    expect(ls).toContain("open.txt");
    expect(bash).toContain("SECRET-free");
    expect(bash).toContain("end");
    for (const text of [grep, find, ls, lsDeep, bash, read]) {
      expect(text).not.toContain("ENVSECRET");
      expect(text).not.toContain("DEEPSECRET");
    }
    for (const text of [find, ls]) expect(text).not.toMatch(/(^|\n)\.env\b/);
    expect(find).not.toContain("secrets/deep/k");
    expect(grep).toContain("permission rules deny reading them");
    expect(read).toContain("Denied by the permission rules");
  });

  it("keeps a URL's password out of the model's view, stdout and the session; bash inherits only the allowlist (D19)", async () => {
    const workspace = await createWorkspace();
    const password = "pa55-d19-word";
    await writeFile(join(workspace.cwd, "app.env"), `DATABASE_URL=postgres://app:${password}@db.internal/app\n`);
    const { results, sessionText, stdout } = await attack(
      workspace,
      [{ name: "bash", arguments: { command: "cat app.env; env | sort" } }],
      {
        settings: { sandbox: { passEnv: ["MY_TOOL_FLAGS"] } },
        env: { DATABASE_URL: `postgres://app:${password}@db.internal/app`, MY_TOOL_FLAGS: "-v", OTHER_THING: "x1" },
      },
    );
    expect(results[0]).toContain("DATABASE_URL=postgres://app:[REDACTED]@db.internal/app");
    expect(results[0]).toContain("MY_TOOL_FLAGS=-v");
    expect(results[0]).toContain("PATH=");
    expect(results[0]).not.toContain("OTHER_THING");
    expect(results[0]?.match(/DATABASE_URL/g)).toHaveLength(1);
    expect(sessionText).not.toContain(password);
    expect(stdout).not.toContain(password);
  });

  it("names a saved full output that the model's next bash call can read (A2)", async () => {
    const workspace = await createWorkspace();
    const { results } = await attack(workspace, [
      { name: "bash", arguments: { command: "seq 1 200000" } },
      { name: "bash", arguments: { command: "tail -n 1 /tmp/gyre-bash-output-*/gyre-bash-*.log" } },
    ]);
    expect(results[0]).toMatch(
      /saved to \/tmp\/gyre-bash-output-\d+-[0-9a-f]+\/gyre-bash-[0-9a-f]+\.log; read or grep it/,
    );
    expect(results[1]).toBe("200000");
  });
});

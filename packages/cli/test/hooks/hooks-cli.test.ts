import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

type Block = { type: "text"; text: string } | { type: "toolCall"; name: string; arguments: Record<string, unknown> };

/** A workspace whose settings (user or project) hold `hooks`, and a faux script. */
async function setup(options: { hooks: unknown; where: "user" | "project"; responses: { content: Block[] }[] }) {
  const { cwd, home } = await createWorkspace();
  const dir = options.where === "user" ? home : join(cwd, ".gyre");
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "settings.json"), JSON.stringify({ hooks: options.hooks }));
  const script = join(home, "script.json");
  await writeFile(script, JSON.stringify(options.responses));
  const faux = ["--provider", "faux", "--faux-script", script];
  return { cwd, home, faux };
}

const answer = (text: string) => ({ content: [{ type: "text", text }] as Block[] });
const command = (line: string, matcher?: string) => [
  { ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command: line }] },
];

describe("hooks in print mode", () => {
  it("exits 1 with the reason on stderr when UserPromptSubmit blocks, and makes no model call", async () => {
    const hooks = { UserPromptSubmit: command("echo 'no deploys on Friday' >&2; exit 2") };
    const { cwd, home, faux } = await setup({ hooks, where: "user", responses: [answer("MODEL WAS CALLED")] });
    const result = await runCli(["-p", ...faux, "deploy now"], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no deploys on Friday");
    expect(result.stdout).not.toContain("MODEL WAS CALLED");
  });

  it("runs a project's hooks with --trust and not without it", async () => {
    const hooks = { SessionStart: command('touch "$CLAUDE_PROJECT_DIR/started"') };
    const { cwd, home, faux } = await setup({ hooks, where: "project", responses: [answer("one"), answer("two")] });
    const untrusted = await runCli(["-p", ...faux, "hi"], { cwd, env: cliEnv(home) });
    expect(untrusted.code).toBe(0);
    expect(existsSync(join(cwd, "started"))).toBe(false);
    const trusted = await runCli(["-p", "--trust", ...faux, "hi"], { cwd, env: cliEnv(home) });
    expect(trusted.code).toBe(0);
    expect(existsSync(join(cwd, "started"))).toBe(true);
  });

  it("lets a PreToolUse allow skip the approval an escalation needs, but never a deny rule", async () => {
    const allow =
      'cat >/dev/null; echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}\'';
    const { cwd, home, faux } = await setup({
      hooks: { PreToolUse: command(allow) },
      where: "user",
      responses: [
        {
          content: [
            {
              type: "toolCall",
              name: "bash",
              arguments: { command: "echo escalated", escalate: true, justification: "test" },
            },
          ],
        },
        { content: [{ type: "toolCall", name: "bash", arguments: { command: "rm -rf junk" } }] },
        answer("done"),
      ],
    });
    const settings = JSON.parse(await readFile(join(home, "settings.json"), "utf8"));
    settings.permissions = { deny: ["bash(rm -rf:*)"] };
    await writeFile(join(home, "settings.json"), JSON.stringify(settings));
    await mkdir(join(cwd, "junk"));
    const result = await runCli(["--mode", "json", "-p", ...faux, "go"], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(0);
    const ends = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .filter((line) => line.type === "tool_execution_end");
    // print mode denies escalations by default (--approval deny): the hook's allow let it run.
    expect(JSON.stringify(ends[0].result)).toContain("escalated");
    expect(ends[0].isError).toBe(false);
    expect(JSON.stringify(ends[1].result)).toContain("Denied by the permission rules");
    expect(existsSync(join(cwd, "junk"))).toBe(true);
  });

  it("answers for the user through a PermissionRequest hook", async () => {
    const deny =
      'cat >/dev/null; echo \'{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"escalation needs a ticket"}}}\'';
    const { cwd, home, faux } = await setup({
      hooks: { PermissionRequest: command(deny, "Bash") },
      where: "user",
      responses: [
        {
          content: [
            { type: "toolCall", name: "bash", arguments: { command: "echo out", escalate: true, justification: "x" } },
          ],
        },
        answer("done"),
      ],
    });
    const result = await runCli(["--mode", "json", "-p", "--approval", "allow", ...faux, "go"], {
      cwd,
      env: cliEnv(home),
    });
    expect(result.code).toBe(0);
    // --approval allow never asks, so no PermissionRequest: the call runs.
    expect(result.stdout).not.toContain("escalation needs a ticket");
    const asked = await runCli(["--mode", "json", "-p", ...faux, "go"], { cwd, env: cliEnv(home) });
    expect(asked.stdout).toContain("A PermissionRequest hook denied this call: escalation needs a ticket");
  });

  it("runs a project's .claude/settings.json hooks with --claude-compat --trust", async () => {
    const hooks = { UserPromptSubmit: command("echo 'blocked by the Claude setup' >&2; exit 2") };
    const { cwd, home, faux } = await setup({ hooks: {}, where: "user", responses: [answer("MODEL WAS CALLED")] });
    await mkdir(join(cwd, ".claude"));
    await writeFile(join(cwd, ".claude", "settings.json"), JSON.stringify({ hooks }));
    const without = await runCli(["-p", "--trust", ...faux, "hi"], { cwd, env: cliEnv(home) });
    expect(without.stdout).toContain("MODEL WAS CALLED");
    const withCompat = await runCli(["-p", "--trust", "--claude-compat", ...faux, "hi"], { cwd, env: cliEnv(home) });
    expect(withCompat.code).toBe(1);
    expect(withCompat.stderr).toContain("blocked by the Claude setup");
  });
});

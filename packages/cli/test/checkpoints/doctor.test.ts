import { spawnSync } from "node:child_process";
import { appendFile, readdir, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { createRedactor } from "../../src/core/session/redact-secrets.js";
import { SessionManager } from "../../src/core/session/session-manager.js";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";
import { assistantMessage, toolCall, userMessage } from "../session/helpers.js";

/** A session with every problem doctor knows, as a crash and a bad disk leave them. */
async function damagedSession(home: string, cwd: string): Promise<string> {
  const session = SessionManager.create({ sessionsDir: `${home}/sessions`, cwd, redact: createRedactor() });
  session.appendMessage(userMessage("run it"));
  session.appendMessage(assistantMessage([toolCall("call-1", "bash", { command: "sleep 9" })], "toolUse"));
  session.appendCheckpoint({ ref: "b".repeat(40), files: [], reason: "turn", workspace: cwd });
  await session.close();
  const path = session.path as string;
  await appendFile(path, 'this line is not json\n{"type":"message","id":"1234');
  const gone = spawnSync("true").pid;
  await writeFile(`${path}.lock`, JSON.stringify({ pid: gone, host: hostname(), timestamp: "2026-01-01T00:00:00Z" }));
  return path;
}

/** A healthy one-message session whose lock names `owner`. */
async function sessionLockedBy(owner: { pid: number; host: string; timestamp: string }) {
  const { cwd, home } = await createWorkspace();
  const session = SessionManager.create({ sessionsDir: `${home}/sessions`, cwd, redact: createRedactor() });
  session.appendMessage(userMessage("hello"));
  await session.close();
  const path = session.path as string;
  const lock = `${path}.lock`;
  await writeFile(lock, JSON.stringify(owner));
  return { cwd, home, path, lock };
}

describe("gyre doctor", () => {
  it("reports a torn tail, a damaged line, an orphaned tool call, a missing checkpoint and a stale lock without changing anything", async () => {
    const { cwd, home } = await createWorkspace();
    const path = await damagedSession(home, cwd);
    const original = await readFile(path);
    const result = await runCli(["doctor", path], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(1);
    for (const text of [
      "5 problem(s)",
      "the last line (6) is incomplete",
      "line 5: the line is not valid JSON",
      "tool call call-1 (bash)",
      "is not in the shadow repository",
      ".lock is left behind: process",
      "--fix would: drop the incomplete line",
    ])
      expect(result.stdout).toContain(text);
    expect(await readFile(path)).toEqual(original);
  });

  it("repairs with --fix, keeping a backup of the original bytes", async () => {
    const { cwd, home } = await createWorkspace();
    const path = await damagedSession(home, cwd);
    const original = await readFile(path);
    const result = await runCli(["doctor", "--fix"], { cwd, env: cliEnv(home) });
    expect(result.stdout).toContain("did: recorded 1 interrupted tool result(s)");
    expect(result.stdout).toContain("repaired");
    expect(result.code).toBe(0);
    const names = await readdir(dirname(path));
    const backup = names.find((name) => name.includes(".bak-"));
    expect(await readFile(`${dirname(path)}/${backup}`)).toEqual(original);
    expect(names.some((name) => name.endsWith(".lock"))).toBe(false);
    const reopened = await SessionManager.open(path, { readOnly: true });
    expect(reopened.problems).toEqual([]);
    expect(reopened.buildContext().messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
    ]);
    const again = await runCli(["doctor", path], { cwd, env: cliEnv(home) });
    // Only what no fix can bring back is left: the pruned checkpoint.
    expect(again.stdout).toContain("1 problem(s)");
    expect(again.stdout).toContain("is not in the shadow repository");
  });

  it("reports another host's old lock with the command that fixes it, and --fix removes it", async () => {
    const { cwd, home, path, lock } = await sessionLockedBy({
      pid: 1,
      host: "other-host",
      timestamp: "2020-01-01T00:00:00.000Z",
    });
    const report = await runCli(["doctor", path], { cwd, env: cliEnv(home) });
    expect(report.code).toBe(1);
    expect(report.stdout).toMatch(
      /found: .*\.lock is left behind: process 1 on other-host took it \d+ days ago, more than 24 h: a lock of another host that old was left behind/,
    );
    expect(report.stdout).toContain(`to repair: gyre doctor ${path} --fix`);
    expect(await readFile(lock, "utf8")).toContain("other-host");

    const fixed = await runCli(["doctor", path, "--fix"], { cwd, env: cliEnv(home) });
    expect(fixed.stdout).toMatch(
      new RegExp(`did: removed ${lock.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(process 1 on other-host took it`),
    );
    expect(fixed.stdout).toContain("repaired");
    expect(fixed.code).toBe(0);
    await expect(readFile(lock, "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("keeps another host's recent lock: it reports it as in use and --fix changes nothing", async () => {
    const recent = new Date(Date.now() - 10 * 60_000).toISOString();
    const { cwd, home, path, lock } = await sessionLockedBy({ pid: 1, host: "other-host", timestamp: recent });
    const fixed = await runCli(["doctor", path, "--fix"], { cwd, env: cliEnv(home) });
    expect(fixed.code).toBe(1);
    expect(fixed.stdout).toContain(
      "process 1 on other-host took it 10 min ago, less than 24 h; that gyre may still run",
    );
    expect(fixed.stdout).toContain(`quit the gyre on other-host; if none runs there, delete ${lock}`);
    expect(await readFile(lock, "utf8")).toContain("other-host");
  });
});

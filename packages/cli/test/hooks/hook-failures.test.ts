import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Context } from "@gyre/ai";
import type { FauxResponse } from "@gyre/ai/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NoticeEvent } from "../../src/core/session-events.js";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";
import { makeTempDirs, type TempDirs } from "../sdk/temp-dirs.js";
import { answeringUser, startFauxSession } from "./faux-session.js";

const text = (value: string): FauxResponse => ({ content: [{ type: "text", text: value }] });
const call = (name: string, args: Record<string, unknown>): FauxResponse => ({
  content: [{ type: "toolCall", name, arguments: args }],
});
const group = (command: string, timeout?: number) => [
  { hooks: [{ type: "command", command, ...(timeout !== undefined ? { timeout } : {}) }] },
];

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await makeTempDirs();
});
afterEach(async () => {
  await dirs.remove();
});

/** A session whose bash calls an `ask` rule sends to a person who always says yes (when asked at all). */
async function start(hooks: Record<string, unknown>, responses: FauxResponse[]) {
  await writeFile(
    join(dirs.home, "settings.json"),
    JSON.stringify({ hooks, approval: "ask", permissions: { ask: ["bash(echo:*)"] } }),
  );
  const asked: string[] = [];
  const ui = answeringUser("allow", asked);
  const created = await startFauxSession(dirs, responses, { ui });
  const notices: NoticeEvent[] = [];
  created.session.subscribe((event) => {
    if (event.type === "notice") notices.push(event);
  });
  // After `created`, whose own `notices` are start-up's.
  return { ...created, asked, notices };
}

const firstToolResult = (context: Context | undefined) => {
  const result = (context?.messages ?? []).find((message) => message.role === "toolResult");
  return (result?.content ?? []).map((block) => (block.type === "text" ? block.text : "")).join("");
};

describe("a hook that fails where it only informs", () => {
  it("becomes an info notice from the hooks, and the model never sees it", async () => {
    const { faux, asked, notices, session, dispose } = await start(
      {
        PostToolUse: group("echo formatter broke >&2; exit 1"),
        // A crash: the shell kills itself.
        Notification: group("cat >/dev/null; kill -9 $$"),
      },
      [call("bash", { command: "echo approved-and-ran" }), text("done")],
    );
    await session.prompt("go");
    await dispose();
    expect(asked).toEqual(["echo approved-and-ran"]);
    const result = firstToolResult(faux.contexts[1]);
    expect(result).toContain("approved-and-ran");
    expect(result).not.toContain("formatter broke");
    const fromHooks = notices.filter((notice) => notice.source === "hooks");
    expect(fromHooks.map((notice) => notice.level)).toEqual(["info", "info"]);
    expect(fromHooks.map((notice) => notice.message).sort()).toEqual([
      'the Notification hook "cat >/dev/null; kill -9 $$" was killed by SIGKILL',
      'the PostToolUse hook "echo formatter broke >&2; exit 1" exited with code 1: formatter broke',
    ]);
  });
});

describe("a gate that fails", () => {
  it.each([
    ["crashes", group("cat >/dev/null; kill -9 $$"), "was killed by SIGKILL, so the call is blocked"],
    ["exits 1", group("cat >/dev/null; exit 1"), "exited with code 1, so the call is blocked"],
    ["times out", group("sleep 30", 1), "timed out after 1 s and was killed, so the call is blocked"],
  ])("blocks the call when a PermissionRequest hook %s, and nobody is asked", async (_, hook, reason) => {
    const { faux, asked, session, dispose } = await start({ PermissionRequest: hook }, [
      call("bash", { command: "echo should-not-run" }),
      text("done"),
    ]);
    await session.prompt("go");
    await dispose();
    expect(asked).toEqual([]);
    const result = firstToolResult(faux.contexts[1]);
    expect(result).toContain(reason);
    expect(result).not.toMatch(/^should-not-run/m);
  });

  it("blocks the call when a PermissionRequest hook script dies part-way, and nobody is asked", async () => {
    const script = join(dirs.home, "approve.sh");
    // Reads the request, starts to answer, then is killed before it decides (its shell reports 128 + 15).
    await writeFile(script, "#!/bin/sh\ncat >/dev/null\nprintf '{\"hookSpecificOutput\":'\nkill -TERM $$\n");
    await chmod(script, 0o755);
    const { faux, asked, session, dispose } = await start({ PermissionRequest: group(`"${script}"`) }, [
      call("bash", { command: "echo should-not-run" }),
      text("done"),
    ]);
    await session.prompt("go");
    await dispose();
    expect(asked).toEqual([]);
    const result = firstToolResult(faux.contexts[1]);
    expect(result).toMatch(/exited with code 143\b.*, so the call is blocked/);
    expect(result).not.toMatch(/^should-not-run/m);
  });

  it("refuses the call when a PermissionRequest hook answers continue: false", async () => {
    const stop = `cat >/dev/null; echo '{"continue":false,"stopReason":"change freeze until Monday"}'`;
    const { faux, asked, session, dispose } = await start({ PermissionRequest: group(stop) }, [
      call("bash", { command: "echo should-not-run" }),
      text("done"),
    ]);
    await session.prompt("go");
    await dispose();
    expect(asked).toEqual([]);
    const result = firstToolResult(faux.contexts[1]);
    expect(result).toContain("change freeze until Monday");
    expect(result).not.toMatch(/^should-not-run/m);
  });

  it("blocks the call when a PreToolUse hook crashes", async () => {
    const { faux, asked, session, dispose } = await start({ PreToolUse: group("cat >/dev/null; kill -9 $$") }, [
      call("bash", { command: "echo should-not-run" }),
      text("done"),
    ]);
    await session.prompt("go");
    await dispose();
    expect(asked).toEqual([]);
    expect(firstToolResult(faux.contexts[1])).toContain("was killed by SIGKILL, so the call is blocked");
  });
});

describe("hook failures in print mode", () => {
  it("keep stdout to the answer, and reach stderr only with --verbose", async () => {
    const { cwd, home } = await createWorkspace();
    const hooks = { PostToolUse: group("echo formatter broke >&2; exit 1"), Stop: group("kill -9 $$") };
    await writeFile(join(home, "settings.json"), JSON.stringify({ hooks }));
    const script = join(home, "script.json");
    await writeFile(script, JSON.stringify([call("bash", { command: "echo hi" }), text("the answer")]));
    const args = ["-p", "--provider", "faux", "--faux-script", script, "go"];
    const quiet = await runCli(args, { cwd, env: cliEnv(home) });
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toBe("the answer\n");
    expect(quiet.stderr).not.toContain("hook");
    const verbose = await runCli(["--verbose", ...args], { cwd, env: cliEnv(home) });
    expect(verbose.code).toBe(0);
    expect(verbose.stdout).toBe("the answer\n");
    expect(verbose.stderr).toContain(
      'gyre: the PostToolUse hook "echo formatter broke >&2; exit 1" exited with code 1',
    );
    expect(verbose.stderr).toContain('gyre: the Stop hook "kill -9 $$" was killed by SIGKILL');
  });
});

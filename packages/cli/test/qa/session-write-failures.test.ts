import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRedactor } from "../../src/core/session/redact-secrets.js";
import { SessionManager } from "../../src/core/session/session-manager.js";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";
import { assistantMessage, tempDir, userMessage } from "../session/helpers.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("session writes that fail", () => {
  it("reports an outage once and, when writing works again, writes every held entry with no gap", async () => {
    const root = await tempDir();
    const sessionsDir = join(root, "sessions");
    await writeFile(sessionsDir, "not a folder"); // mkdir of the session's folder fails: ENOTDIR
    const session = SessionManager.create({ sessionsDir, cwd: "/work/project", redact: createRedactor() });
    session.appendMessage(userMessage("one"));
    await expect(session.flush()).rejects.toThrow(/Could not write session .*ENOTDIR/);
    session.appendMessage(assistantMessage([{ type: "text", text: "A" }]));
    await expect(session.flush()).resolves.toBeUndefined(); // the same outage: not reported again
    await rm(sessionsDir);
    await mkdir(sessionsDir);
    const last = session.appendMessage(userMessage("two"));
    await session.close();
    const lines = (await readFile(session.path as string, "utf8")).trimEnd().split("\n");
    expect(lines.map((line) => JSON.parse(line).type)).toEqual(["session", "message", "message", "message"]);
    const reopened = await SessionManager.open(session.path as string);
    expect(reopened.leafId).toBe(last);
    expect(reopened.buildContext().messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    await reopened.close();
  });

  it("says so when the session file is deleted or replaced while open, once", async () => {
    const session = SessionManager.create({ sessionsDir: await tempDir(), cwd: "/p", redact: createRedactor() });
    session.appendMessage(userMessage("one"));
    await session.flush();
    const path = session.path as string;
    await rename(path, `${path}.moved`);
    await writeFile(path, "someone else's file\n");
    session.appendMessage(userMessage("two"));
    await expect(session.flush()).rejects.toThrow(/was deleted or replaced while gyre was writing it/);
    session.appendMessage(userMessage("three"));
    await expect(session.flush()).resolves.toBeUndefined();
    await session.close();
  });

  it("a print run whose sessions folder cannot be created still answers and warns once", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(home, "sessions"), "not a folder");
    let calls = 0;
    server = await startFakeModelServer({
      respond: () =>
        calls++ === 0 ? { toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] } : { text: "final answer" },
    });
    const result = await runCli(["-p", "--provider", "openai", "go"], {
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" }),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("final answer\n");
    expect(result.stderr.match(/could not write the session file/g)).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

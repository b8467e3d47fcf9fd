import { spawn } from "node:child_process";
import { readdir, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lockPathFor } from "../../src/core/session/session-lock.js";
import { SessionManager } from "../../src/core/session/session-manager.js";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin, runCli } from "../helpers/run-cli.js";
import { userMessage } from "../session/helpers.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs the CLI under `umask 000`, so only the modes gyre asks for protect the files. */
function runWithOpenUmask(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", 'umask 000; exec "$0" "$@"', process.execPath, gyreBin, ...args], {
      cwd,
      env,
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.on("error", reject);
    child.on("close", resolve);
  });
}

async function closedSession(sessionsDir: string): Promise<string> {
  const session = SessionManager.create({ sessionsDir, cwd: "/p" });
  session.appendMessage(userMessage("hello"));
  await session.close();
  return session.path as string;
}

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe("file modes", () => {
  it("creates GYRE_HOME and the session folders 0700 and the session file 0600 under umask 000", async () => {
    const { cwd, home } = await createWorkspace();
    const gyreHome = join(home, "fresh-home");
    server = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
    const env = cliEnv(home, { GYRE_HOME: gyreHome, OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-t" });
    expect(await runWithOpenUmask(["-p", "--provider", "openai", "hi"], cwd, env)).toBe(0);
    const sessions = join(gyreHome, "sessions");
    const [folder] = await readdir(sessions);
    const project = join(sessions, folder as string);
    const [file] = await readdir(project);
    expect(await modeOf(gyreHome)).toBe(0o700);
    expect(await modeOf(sessions)).toBe(0o700);
    expect(await modeOf(project)).toBe(0o700);
    expect(await modeOf(join(project, file as string))).toBe(0o600);
  });

  it("holds the lock file at 0600 and makes an older world-readable session file private", async () => {
    const { home } = await createWorkspace();
    const path = await closedSession(home);
    await import("node:fs/promises").then((fs) => fs.chmod(path, 0o644));
    const reopened = await SessionManager.open(path);
    expect(await modeOf(lockPathFor(path))).toBe(0o600);
    expect(await modeOf(path)).toBe(0o600);
    await reopened.close();
  });
});

describe("a lock left empty by a crash", () => {
  it("is reclaimed by -c like a stale lock", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: ({ index }) => ({ text: `answer ${index}` }) });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-t" });
    expect((await runCli(["-p", "--provider", "openai", "first"], { cwd, env })).code).toBe(0);
    const sessions = join(home, "sessions");
    const [folder] = await readdir(sessions);
    const [file] = await readdir(join(sessions, folder as string));
    const lock = lockPathFor(join(sessions, folder as string, file as string));
    await writeFile(lock, "");
    const old = new Date(Date.now() - 10_000);
    await utimes(lock, old, old);
    const result = await runCli(["-p", "-c", "--provider", "openai", "second"], { cwd, env });
    expect(result.stderr).not.toMatch(/keeps changing/);
    expect(result.code).toBe(0);
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain("first");
  });

  it("is waited for while it is fresh (its writer may be mid-write), then reclaimed", async () => {
    const { home } = await createWorkspace();
    const path = await closedSession(home);
    await writeFile(lockPathFor(path), "");
    const started = Date.now();
    const reopened = await SessionManager.open(path);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    await reopened.close();
  });
});

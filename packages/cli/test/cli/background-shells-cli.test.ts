/**
 * Every background shell dies with its session: the SDK's `dispose()` ends it, and so does a
 * kill -9 of the gyre process, with the sandbox on (bubblewrap) and off (the host guard). A dev
 * server a session's model starts in one turn answers its curl in the next, inside the sandbox.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentToolResult } from "@gyre/agent";
import { createFauxModel, type FauxResponse } from "@gyre/ai/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createAgentSession } from "../../src/index.js";
import { RpcClient } from "../../src/modes/rpc/rpc-client.js";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pids whose command line is exactly `sleep <seconds>` (a unique marker per test). */
async function sleepers(seconds: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    const status = await readFile(`/proc/${entry}/status`, "utf8").catch(() => "");
    if (cmdline === `sleep\0${seconds}\0` && !/^State:\s+Z/m.test(status)) found.push(Number(entry));
  }
  return found;
}

/** Waits until `check` holds, polling; false when it never did. */
async function eventually(check: () => Promise<boolean>, tries = 100): Promise<boolean> {
  for (let attempt = 0; attempt < tries; attempt++) {
    if (await check()) return true;
    await sleep(50);
  }
  return false;
}

const marker = () => `3600.${Math.floor(Math.random() * 1e6)}`;
const background = (seconds: string) => ({
  name: "bash",
  arguments: { command: `echo up > up.txt; sleep ${seconds}; echo never`, run_in_background: true },
});

describe("a background shell of a session", () => {
  for (const mode of ["off", "workspace-write"] as const) {
    it(`ends with the SDK's dispose (sandbox ${mode})`, async () => {
      const { cwd, home } = await createWorkspace();
      const seconds = marker();
      const toolCall = (call: ReturnType<typeof background>): FauxResponse => ({
        content: [{ type: "toolCall", ...call }],
      });
      const faux = createFauxModel([toolCall(background(seconds)), { content: [{ type: "text", text: "started" }] }]);
      const { session, dispose } = await createAgentSession({
        cwd,
        gyreHome: home,
        model: faux.model,
        settings: { sandbox: { mode } },
      });
      await session.prompt("start it");
      expect(await eventually(async () => (await sleepers(seconds)).length === 1)).toBe(true);
      expect(session.info.shells?.list()).toMatchObject([{ id: "shell-1", state: "running" }]);
      await dispose();
      expect(await eventually(async () => (await sleepers(seconds)).length === 0)).toBe(true);
      expect(session.info.shells?.list()).toMatchObject([{ id: "shell-1", state: "killed" }]);
    }, 30_000);

    it(`ends when gyre is killed with -9 (sandbox ${mode})`, async () => {
      const { cwd, home } = await createWorkspace();
      const seconds = marker();
      // The model starts the shell, then hangs: gyre is mid-run when it is killed.
      server = await startFakeModelServer({
        respond: ({ index }) => (index === 0 ? { toolCalls: [background(seconds)] } : new Promise(() => {})),
      });
      const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" });
      const args = [gyreBin, "--provider", "openai", "--model", "gpt-4o", "--sandbox", mode, "-p", "go"];
      const child = spawn(process.execPath, args, { cwd, env, stdio: "ignore" });
      const closed = new Promise((resolve) => child.once("close", resolve));
      expect(await eventually(async () => existsSync(join(cwd, "up.txt")), 300)).toBe(true);
      expect(await eventually(async () => (await sleepers(seconds)).length === 1)).toBe(true);
      child.kill("SIGKILL");
      await closed;
      const gone = await eventually(async () => (await sleepers(seconds)).length === 0, 60);
      for (const pid of await sleepers(seconds)) process.kill(pid, "SIGKILL");
      expect(gone).toBe(true);
    }, 30_000);
  }
});

/** The pids whose command line holds `marker`, zombies left out. */
async function running(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    const status = await readFile(`/proc/${entry}/status`, "utf8").catch(() => "");
    if (cmdline.includes(marker) && !/^State:\s+Z/m.test(status)) found.push(Number(entry));
  }
  return found;
}

describe("a dev server in a background shell", () => {
  it("runs across turns in the sandbox: a later turn curls it, kills it, and nothing is left after dispose", async () => {
    const { cwd, home } = await createWorkspace();
    const tag = `gyre-dev-server-${marker()}`;
    // It says on which port it listens in port.txt: the scripted model cannot read its log.
    const server =
      `node -e "/* ${tag} */ require('http').createServer((q, s) => { console.log('GET ' + q.url); s.end('hello from turn one') })` +
      ".listen(0, '127.0.0.1', function () { require('fs').writeFileSync('port.txt', String(this.address().port)) })\"";
    const toolCall = (name: string, args: Record<string, unknown>): FauxResponse => ({
      content: [{ type: "toolCall", name, arguments: args }],
    });
    const faux = createFauxModel([
      toolCall("bash", { command: server, run_in_background: true }),
      { content: [{ type: "text", text: "The server is starting." }] },
      toolCall("bash", { command: "curl -s http://127.0.0.1:$(cat port.txt)/ping" }),
      toolCall("bash_output", { id: "shell-1" }),
      toolCall("kill_shell", { id: "shell-1" }),
      { content: [{ type: "text", text: "done" }] },
    ]);
    const { session, dispose } = await createAgentSession({
      cwd,
      gyreHome: home,
      model: faux.model,
      settings: { sandbox: { mode: "workspace-write" } },
    });
    const results: string[] = [];
    session.subscribe((event) => {
      if (event.type === "tool_execution_end") results.push(textOf(event.result));
    });
    try {
      await session.prompt("Start the dev server.");
      expect(results[0]).toMatch(/^Started background shell shell-1: node -e/);
      expect(await eventually(async () => existsSync(join(cwd, "port.txt")), 300)).toBe(true);
      expect(await running(tag)).not.toEqual([]);
      await session.prompt("Check that it answers, then stop it.");
      const [, curl, output, killed] = results;
      expect(curl).toBe("hello from turn one");
      expect(output).toContain("GET /ping");
      expect(killed).toMatch(/shell-1/);
      expect(session.info.shells?.list()).toMatchObject([{ id: "shell-1", state: "killed" }]);
    } finally {
      await dispose();
    }
    expect(await eventually(async () => (await running(tag)).length === 0)).toBe(true);
  }, 60_000);
});

function textOf(result: AgentToolResult<unknown>): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

describe("RPC get_state", () => {
  it("lists the background shells with their state", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0
          ? { toolCalls: [{ name: "bash", arguments: { command: "echo hi; exit 3", run_in_background: true } }] }
          : { text: "started" },
    });
    const rpc = new RpcClient({
      command: gyreBin,
      args: ["--provider", "openai", "--model", "gpt-4o", "--sandbox", "off"],
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" }),
    });
    try {
      const idle = rpc.waitForEvent((event) => event.type === "session_idle");
      expect((await rpc.send({ type: "prompt", message: "go" })).success).toBe(true);
      await idle;
      const exited = await eventually(async () => {
        const state = (await rpc.send({ type: "get_state" })).data as { shells: { state: string }[] };
        return state.shells[0]?.state === "exited";
      });
      expect(exited).toBe(true);
      const state = (await rpc.send({ type: "get_state" })).data as { shells: unknown[] };
      expect(state.shells).toMatchObject([{ id: "shell-1", command: "echo hi; exit 3", state: "exited", exitCode: 3 }]);
    } finally {
      await rpc.close();
    }
  }, 30_000);
});

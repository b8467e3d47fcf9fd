import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RpcClient, type RpcEvent } from "../../src/modes/rpc/rpc-client.js";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
let client: RpcClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  await server?.close();
  server = undefined;
});

async function readAll(dir: string): Promise<string> {
  let text = "";
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += await readFile(join(entry.parentPath, entry.name), "utf8");
  }
  return text;
}

describe("gyre --mode json", () => {
  it("writes the session header, then every event as one JSON line, paired and in order", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0 ? { toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] } : { text: "done" },
    });
    const key = "sk-secret-abcdef1234567890";
    const result = await runCli(["--mode", "json", "-p", "--provider", "openai", "go"], {
      cwd,
      env: cliEnv(home, { OPENAI_API_KEY: key, OPENAI_BASE_URL: `${server.url}/v1` }),
    });
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string });
    expect(events[0]).toMatchObject({ type: "session", version: 1, cwd });
    const types = events.slice(1).map((event) => event.type);
    expect(types[0]).toBe("agent_start");
    // The loop's end, then the session's: everything is written and nothing waits.
    expect(types.slice(-3)).toEqual(["agent_end", "session_idle", "result"]);
    expect(events.at(-1)).toMatchObject({ type: "result", reason: "stop", turns: 2, sessionFile: expect.any(String) });
    for (const [start, end] of [
      ["turn_start", "turn_end"],
      ["message_start", "message_end"],
      ["tool_execution_start", "tool_execution_end"],
    ] as const) {
      expect(types.filter((type) => type === start).length).toBe(types.filter((type) => type === end).length);
    }
    expect(types.filter((type) => type === "turn_start")).toHaveLength(2);
    const toolEnd = events.find((event) => event.type === "tool_execution_end") as unknown as { result: unknown };
    expect(JSON.stringify(toolEnd.result)).toContain("hi");
    expect(await readAll(join(home, "sessions"))).not.toContain(key);
  });
});

describe("gyre --mode rpc", () => {
  function startClient(cwd: string, home: string, url: string): RpcClient {
    return new RpcClient({
      command: gyreBin,
      args: ["--provider", "openai", "--model", "gpt-4o"],
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${url}/v1` }),
    });
  }

  it("answers get_state, runs a prompt, and reports unknown commands without stopping", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: () => ({ text: "hello from rpc" }) });
    client = startClient(cwd, home, server.url);
    const state = await client.send({ type: "get_state" });
    expect(state).toMatchObject({ type: "response", command: "get_state", success: true });
    expect(state.data).toMatchObject({ model: { provider: "openai", id: "gpt-4o" }, isRunning: false });
    const ended = client.waitForEvent((event) => event.type === "agent_end");
    expect((await client.send({ type: "prompt", message: "hi" })).success).toBe(true);
    await ended;
    const text = await client.send({ type: "get_last_assistant_text" });
    expect(text.data).toEqual({ text: "hello from rpc" });
    const unknown = await client.send({ type: "frobnicate" } as never);
    expect(unknown).toMatchObject({ success: false });
    expect(unknown.error).toMatch(/Unknown command "frobnicate"/);
    const messages = await client.send({ type: "get_messages" });
    expect((messages.data as { messages: unknown[] }).messages).toHaveLength(2);
    expect(await client.close()).toBe(0);
    client = undefined;
  });

  it("steers and queues follow-ups while busy, aborts on request, and needs streamingBehavior when busy", async () => {
    const { cwd, home } = await createWorkspace();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    server = await startFakeModelServer({
      respond: async ({ index }) => {
        if (index === 0) {
          await gate;
          return { toolCalls: [{ name: "bash", arguments: { command: "echo step" } }] };
        }
        return { text: `reply ${index}` };
      },
    });
    client = startClient(cwd, home, server.url);
    const events: RpcEvent[] = [];
    client.onEvent((event) => events.push(event));
    const firstEnd = client.waitForEvent((event) => event.type === "agent_end");
    await client.send({ type: "prompt", message: "start" });
    const busy = await client.send({ type: "prompt", message: "again" });
    expect(busy.success).toBe(false);
    expect(busy.error).toMatch(/streamingBehavior/);
    expect((await client.send({ type: "prompt", message: "steered", streamingBehavior: "steer" })).success).toBe(true);
    expect((await client.send({ type: "follow_up", message: "afterwards" })).success).toBe(true);
    release();
    await firstEnd;
    const bodies = server.requests.map((request) => JSON.stringify(request.body.messages));
    expect(bodies[1]).toContain("steered");
    expect(bodies.at(-1)).toContain("afterwards");

    const hanging = await startFakeModelServer({ respond: () => ({ text: "slow ".repeat(50), delayMs: 200 }) });
    await client.close();
    client = new RpcClient({
      command: gyreBin,
      args: ["--provider", "openai", "--base-url", `${hanging.url}/v1`],
      cwd,
      env: cliEnv(home),
    });
    const started = client.waitForEvent((event) => event.type === "message_update");
    const aborted = client.waitForEvent((event) => event.type === "agent_end");
    await client.send({ type: "prompt", message: "long one" });
    await started;
    expect((await client.send({ type: "abort" })).success).toBe(true);
    const end = (await aborted) as unknown as { messages: { role: string; stopReason?: string }[] };
    expect(end.messages.find((message) => message.role === "assistant")?.stopReason).toBe("aborted");
    await hanging.close();
  });
});

describe("output to a slow reader", () => {
  it("delivers every JSON line before exiting, even when the pipe is full", async () => {
    const { cwd, home } = await createWorkspace();
    const answer = Array.from({ length: 3000 }, (_, index) => `token-${index} `).join("");
    server = await startFakeModelServer({ respond: () => ({ text: answer, chunkSize: 12 }) });
    const child = spawn(process.execPath, [gyreBin, "--mode", "json", "-p", "--provider", "openai", "go"], {
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` }),
    });
    child.stdin.end();
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    // Read nothing until the child has filled the pipe and is trying to exit.
    await new Promise((resolve) => setTimeout(resolve, 600));
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    await new Promise((resolve) => child.stdout.on("end", resolve));
    expect(await exited).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(stdout.length).toBeGreaterThan(200_000);
    expect(JSON.parse(lines.at(-3) ?? "{}")).toMatchObject({ type: "agent_end" });
    expect(JSON.parse(lines.at(-2) ?? "{}")).toMatchObject({ type: "session_idle" });
    expect(JSON.parse(lines.at(-1) ?? "{}")).toMatchObject({ type: "result", reason: "stop" });
  });
});

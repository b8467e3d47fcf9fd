/**
 * RPC's one command per session op (docs/design/session.md): the session decides what waits,
 * `session_idle` says a run and its writes are over, and `shutdown` ends serving like EOF.
 */
import { describe, expect, it } from "vitest";
import { RpcClient } from "../../src/modes/rpc/rpc-client.js";
import { closeAfterEach } from "../helpers/closing.js";
import { startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin } from "../helpers/run-cli.js";

const closing = closeAfterEach();

async function start(reply: () => { text: string; chunkSize?: number; delayMs?: number }) {
  const { cwd, home } = await createWorkspace();
  const server = closing(await startFakeModelServer({ respond: reply }));
  return closing(
    new RpcClient({
      command: gyreBin,
      args: ["--provider", "openai", "--model", "gpt-4o"],
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" }),
    }),
  );
}

describe("RPC session ops", () => {
  it("emits session_idle after agent_end, once the run is written", async () => {
    const rpc = await start(() => ({ text: "hello" }));
    const seen: string[] = [];
    rpc.onEvent((event) => seen.push(event.type));
    const idle = rpc.waitForEvent((event) => event.type === "session_idle");
    expect((await rpc.send({ type: "prompt", message: "hi" })).success).toBe(true);
    await idle;
    expect(seen.indexOf("agent_end")).toBeGreaterThan(-1);
    expect(seen.indexOf("session_idle")).toBeGreaterThan(seen.indexOf("agent_end"));
    expect(seen.filter((type) => type === "session_idle")).toHaveLength(1);
  });

  it("refuses new while the model answers, runs shell once the run ends, and shutdown ends serving", async () => {
    const rpc = await start(() => ({ text: `${"word ".repeat(200)}end`, chunkSize: 5, delayMs: 10 }));
    const streaming = rpc.waitForEvent((event) => event.type === "message_update");
    expect((await rpc.send({ type: "prompt", message: "long" })).success).toBe(true);
    await streaming;
    const refused = await rpc.send({ type: "new" });
    expect(refused).toMatchObject({ success: false });
    expect(refused.error).toBe("/new cannot run while the agent works; wait or press Esc to abort first.");
    // A !cmd waits for the run (queue) and is answered with its result.
    const shell = await rpc.send({ type: "shell", command: "echo from-shell" });
    expect(shell).toMatchObject({ success: true, data: { exitCode: 0 } });
    expect(JSON.stringify(shell.data)).toContain("from-shell");
    const state = (await rpc.send({ type: "get_state" })).data as { isRunning: boolean; messageCount: number };
    expect(state.isRunning).toBe(false);
    expect((await rpc.send({ type: "new" })).success).toBe(true);
    expect(await rpc.send({ type: "shutdown" })).toMatchObject({ success: true, data: { disposed: true } });
    expect(await rpc.exited).toBe(0);
  });
});

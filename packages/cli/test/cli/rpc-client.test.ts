/**
 * RpcClient against a real `gyre --mode rpc`: events arrive typed as the RPC event union, and a
 * send() still waiting when the server dies rejects with why instead of hanging.
 */
import { describe, expect, it } from "vitest";
import { RpcClient, type RpcEvent } from "../../src/modes/rpc/rpc-client.js";
import { closeAfterEach } from "../helpers/closing.js";
import { startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin } from "../helpers/run-cli.js";

const closing = closeAfterEach();

/** `gyre --mode rpc` against a model server that answers every request with `reply`. */
async function startClient(reply: { text: string; hang?: boolean }): Promise<RpcClient> {
  const { cwd, home } = await createWorkspace();
  const server = closing(await startFakeModelServer({ respond: () => reply }));
  return closing(
    new RpcClient({
      command: gyreBin,
      args: ["--provider", "openai", "--model", "gpt-4o"],
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" }),
    }),
  );
}

describe("RpcClient", () => {
  it("rejects a pending send when the server process exits, and every later one", async () => {
    // A stream that never ends keeps the prompt's run open while the server is killed.
    const client = await startClient({ text: "partial", hang: true });
    const started = client.waitForEvent((event) => event.type === "agent_start");
    expect((await client.send({ type: "prompt", message: "hello" })).success).toBe(true);
    await started;
    // Stopped first, so the command is surely still unanswered when the kill comes.
    const pid = (client as unknown as { child: { pid: number } }).child.pid;
    process.kill(pid, "SIGSTOP");
    const pending = client.send({ type: "get_state" });
    process.kill(pid, "SIGKILL");
    await expect(pending).rejects.toThrow(/No response to get_state: the gyre RPC server was killed by SIGKILL/);
    await expect(client.send({ type: "get_state" })).rejects.toThrow(/Cannot send get_state/);
  });

  it("narrows events by their type", async () => {
    const client = await startClient({ text: "typed answer" });
    const ended = client.waitForEvent((event) => event.type === "agent_end");
    await client.send({ type: "prompt", message: "hello" });
    const event: RpcEvent = await ended;
    if (event.type !== "agent_end") throw new Error(`expected agent_end, got ${event.type}`);
    // `messages` is known on agent_end without a cast.
    const last = event.messages.at(-1);
    expect(last?.role).toBe("assistant");
    expect(JSON.stringify(last)).toContain("typed answer");
  });

  it("starts gyre through node with the bin and a Node flag first (N14)", async () => {
    const { cwd, home } = await createWorkspace();
    const server = closing(await startFakeModelServer({ respond: () => ({ text: "hi" }) }));
    const client = closing(
      new RpcClient({
        command: process.execPath,
        args: ["--max-old-space-size=512", gyreBin, "--provider", "openai", "--model", "gpt-4o", "--no-session"],
        cwd,
        env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" }),
      }),
    );
    const state = await client.send({ type: "get_state" });
    expect(state).toMatchObject({ type: "response", command: "get_state", success: true });
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { RpcClient } from "../../src/modes/rpc/rpc-client.js";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin, runCli } from "../helpers/run-cli.js";

/** What a test started (RPC clients, fake servers), closed in reverse order after it. */
const opened: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

async function fakeServer(text: string): Promise<FakeModelServer> {
  const server = await startFakeModelServer({ respond: () => ({ text }) });
  opened.push(server);
  return server;
}

function rpcClient(cwd: string, home: string, models: string, extraEnv: Record<string, string>): RpcClient {
  const client = new RpcClient({
    command: gyreBin,
    args: ["--provider", "openai", "--model", "gpt-4o", "--models", models],
    cwd,
    env: cliEnv(home, extraEnv),
  });
  opened.push(client);
  return client;
}

const openai = (url: string) => ({ OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${url}/v1` });

describe("--models outside the TUI", () => {
  for (const mode of [["-p"], ["--mode", "json", "-p"]])
    it(`refuses a pattern that matches no model in ${mode.join(" ")} before any request (exit 2)`, async () => {
      const { cwd, home } = await createWorkspace();
      const server = await fakeServer("never");
      const result = await runCli(
        [...mode, "--provider", "openai", "--model", "gpt-4o", "--models", "gpt-4o,nope-*", "hi"],
        { cwd, env: cliEnv(home, openai(server.url)) },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        'No configured model matches "nope-*" in --models; run gyre --list-models to see them.',
      );
      expect(result.stdout).toBe("");
      expect(server.requests).toHaveLength(0);
    });

  it("runs a print prompt on the --model when every --models pattern matches", async () => {
    const { cwd, home } = await createWorkspace();
    const server = await fakeServer("fine");
    const result = await runCli(
      ["-p", "--provider", "openai", "--model", "gpt-4o", "--models", "gpt-4o,gpt-4o-mini", "hi"],
      { cwd, env: cliEnv(home, openai(server.url)) },
    );
    expect(result.stdout).toBe("fine\n");
    expect(result.code).toBe(0);
    expect(server.requests[0]?.body.model).toBe("gpt-4o");
  });

  it("cycles the --models list with RPC cycle_model, both ways, and the next prompt uses the model", async () => {
    const { cwd, home } = await createWorkspace();
    const server = await fakeServer("cycled");
    const client = rpcClient(cwd, home, "gpt-4o,gpt-4o-mini", openai(server.url));
    const forward = await client.send({ type: "cycle_model" });
    expect(forward).toMatchObject({ success: true, data: { model: { id: "gpt-4o-mini" }, scoped: true } });
    expect((await client.send({ type: "cycle_model" })).data).toMatchObject({ model: { id: "gpt-4o" } });
    const backward = await client.send({ type: "cycle_model", direction: "backward" });
    expect(backward.data).toMatchObject({ model: { id: "gpt-4o-mini" } });
    const bad = await client.send({ type: "cycle_model", direction: "sideways" } as never);
    expect(bad).toMatchObject({
      success: false,
      error: 'Invalid "cycle_model" command: /direction must be one of "forward", "backward" (got "sideways").',
    });
    const ended = client.waitForEvent((event) => event.type === "agent_end");
    await client.send({ type: "prompt", message: "hi" });
    await ended;
    expect(server.requests[0]?.body.model).toBe("gpt-4o-mini");
  });

  it("says there is nothing to cycle when --models names one model", async () => {
    const { cwd, home } = await createWorkspace();
    const client = rpcClient(cwd, home, "gpt-4o", { OPENAI_API_KEY: "sk-test" });
    const only = await client.send({ type: "cycle_model" });
    expect(only).toMatchObject({
      success: false,
      error: "Only one model to cycle through (openai/gpt-4o); list more with --models a,b,c.",
    });
  });
});

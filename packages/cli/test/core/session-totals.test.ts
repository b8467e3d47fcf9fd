import { afterEach, describe, expect, it } from "vitest";
import { RpcClient } from "../../src/modes/rpc/rpc-client.js";
import { type FakeBody, type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin } from "../helpers/run-cli.js";

type Stats = { cost: number; tokens: { input: number; output: number }; contextTokens: number };

let client: RpcClient | undefined;
let server: FakeModelServer | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

function isSummaryRequest(body: FakeBody): boolean {
  return JSON.stringify(body.messages?.[0]?.content ?? "").includes("hand-over summary");
}

async function prompt(rpc: RpcClient, message: string): Promise<void> {
  const ended = rpc.waitForEvent((event) => event.type === "agent_end");
  const response = await rpc.send({ type: "prompt", message });
  expect(response.error).toBeUndefined();
  await ended;
  // agent_end comes before the run has settled (persisted); the next prompt waits for that.
  for (;;) {
    const state = (await rpc.send({ type: "get_state" })).data as { isRunning: boolean };
    if (!state.isRunning) return;
  }
}

async function stats(rpc: RpcClient): Promise<Stats> {
  return (await rpc.send({ type: "get_session_stats" })).data as Stats;
}

describe("session totals (the RPC get_session_stats and the footer read the same figures)", () => {
  it("never go down after a compaction, and count the summary call", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({
      respond: ({ body, index }) =>
        isSummaryRequest(body)
          ? { text: "summary of the talk", usage: { prompt_tokens: 3000, completion_tokens: 500, total_tokens: 3500 } }
          : {
              text: `answer ${index} ${"word ".repeat(200)}`,
              usage: { prompt_tokens: 2000 + index * 1000, completion_tokens: 300, total_tokens: 2300 + index * 1000 },
            },
    });
    client = new RpcClient({
      command: gyreBin,
      args: ["--provider", "openai", "--model", "gpt-4o"],
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` }),
    });
    for (const text of ["first", "second", "third"]) await prompt(client, text);
    const before = await stats(client);
    expect(before.tokens.input).toBe(2000 + 3000 + 4000);
    const compacted = await client.send({ type: "compact" });
    expect(compacted.error).toBeUndefined();
    const after = await stats(client);
    expect(after.tokens.input).toBe(before.tokens.input + 3000);
    expect(after.tokens.output).toBe(before.tokens.output + 500);
    expect(after.cost).toBeGreaterThan(before.cost);
    // The context figure now describes the compacted context, not the last call before it.
    expect(after.contextTokens).toBeLessThan(before.contextTokens);
    await prompt(client, "fourth");
    const later = await stats(client);
    expect(later.cost).toBeGreaterThan(after.cost);
  });
});

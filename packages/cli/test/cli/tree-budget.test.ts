import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RpcClient } from "../../src/modes/rpc/rpc-client.js";
import type { RpcUiRequest } from "../../src/modes/rpc/rpc-types.js";
import { cliEnv, createWorkspace, gyreBin, runCli } from "../helpers/run-cli.js";

type Block = { type: "text"; text: string } | { type: "toolCall"; name: string; arguments: Record<string, unknown> };
const text = (value: string) => ({ content: [{ type: "text", text: value }] as Block[] });
const call = (name: string, args: Record<string, unknown>) => ({
  content: [{ type: "toolCall", name, arguments: args }] as Block[],
});

async function workspace(responses: { content: Block[] }[]) {
  const { cwd, home } = await createWorkspace();
  const script = join(home, "script.json");
  await writeFile(script, JSON.stringify(responses));
  await writeFile(join(cwd, "notes.md"), "alpha\n");
  return { cwd, home, script };
}

const delegate = call("task", { description: "read notes", prompt: "Read notes.md.", agent: "explore" });
const agentSpend = (agent: string, turns: number) =>
  expect.objectContaining({ agent, turns, tokens: expect.any(Number), cost: 0, durationMs: expect.any(Number) });

let client: RpcClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

describe("one budget for the tree of agents", () => {
  it("stops a JSON run whose subagent spent the turn budget, naming the limit, the flag that raises it and each agent's share", async () => {
    const { cwd, home, script } = await workspace([
      delegate,
      call("read", { path: "notes.md" }),
      call("read", { path: "notes.md" }),
      text("the child never gets here"),
      text("nor the parent"),
    ]);
    const flags = "--mode json -p --provider faux --tools read,task --max-turns 3".split(" ");
    const result = await runCli([...flags, "--faux-script", script, "go"], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(1);
    const nextStep =
      "Raise it with --max-turns or the maxTurns setting, then continue the session (gyre -c, or another message) to go on.";
    expect(result.stderr).toContain(`gyre: The turn budget of the agent tree is reached (3 of 3). ${nextStep}\n`);
    const last = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}");
    expect(last).toMatchObject({
      type: "result",
      reason: "budget",
      stoppedBy: `The turn budget of the agent tree is reached (3 of 3). ${nextStep}`,
      agents: [agentSpend("main", 1), agentSpend("explore#1", 2)],
    });
    const [main, child] = last.agents as { durationMs: number }[];
    expect(main?.durationMs).toBeGreaterThanOrEqual(child?.durationMs ?? Number.POSITIVE_INFINITY);
  });

  it("reports each agent of the last request in the RPC get_session_stats", async () => {
    const { cwd, home, script } = await workspace([
      delegate,
      call("read", { path: "notes.md" }),
      text("alpha"),
      text("the notes say alpha"),
    ]);
    client = new RpcClient({
      command: gyreBin,
      args: ["--provider", "faux", "--faux-script", script, "--tools", "read,task"],
      cwd,
      env: cliEnv(home),
    });
    const ended = client.waitForEvent((event) => event.type === "agent_end");
    expect((await client.send({ type: "prompt", message: "go" })).error).toBeUndefined();
    await ended;
    const stats = (await client.send({ type: "get_session_stats" })).data as {
      agents: unknown[];
      assistantMessages: number;
    };
    expect(stats.assistantMessages).toBe(2);
    expect(stats.agents).toEqual([agentSpend("main", 2), agentSpend("explore#1", 2)]);
  });

  it("pauses an RPC run whose subagent spent the budget, asks the client, and the subagent goes on once raised", async () => {
    const { cwd, home, script } = await workspace([
      delegate,
      call("read", { path: "notes.md" }),
      call("read", { path: "notes.md" }),
      text("the child read alpha"),
      text("the parent heard alpha"),
    ]);
    const questions: RpcUiRequest[] = [];
    client = new RpcClient({
      command: gyreBin,
      args: ["--provider", "faux", "--faux-script", script, "--tools", "read,task", "--max-turns", "3"],
      cwd,
      env: cliEnv(home),
      onUiRequest: async (request) => {
        questions.push(request);
        return { value: request.options?.[0] };
      },
    });
    const ended = client.waitForEvent((event) => event.type === "agent_end");
    expect((await client.send({ type: "prompt", message: "go" })).error).toBeUndefined();
    await ended;
    expect(questions.map((question) => [question.method, question.title])).toEqual([
      ["select", "The turn budget of the agent tree is reached (3 of 3). Raise it and go on?"],
    ]);
    const stats = (await client.send({ type: "get_session_stats" })).data as {
      agents: { agent: string; turns: number; tokens: number }[];
      tokens: { total: number };
    };
    expect(stats.agents).toEqual([agentSpend("main", 2), agentSpend("explore#1", 3)]);
    // The session's totals are the tree's, not the main agent's alone.
    expect(stats.tokens.total).toBe(stats.agents.reduce((sum, agent) => sum + agent.tokens, 0));
    const messages = (await client.send({ type: "get_messages" })).data as {
      messages: { role: string; content: { text?: string }[] }[];
    };
    const answer = messages.messages.find((message) => message.role === "toolResult");
    expect(answer?.content[0]?.text).toMatch(/^the child read alpha/);
  });
});

import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient } from "../../src/modes/rpc/rpc-client.js";
import type { RpcUiRequest } from "../../src/modes/rpc/rpc-types.js";
import { closeAfterEach } from "../helpers/closing.js";
import { startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin, runCli } from "../helpers/run-cli.js";

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

/**
 * A JSON-mode run whose faux model calls server-everything's sampling tool; the server's
 * `sampling/createMessage` is answered by the same faux model's next response.
 */
async function runSampling(settings: Record<string, unknown>) {
  const { cwd, home } = await createWorkspace();
  await writeFile(
    join(home, "mcp.json"),
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } }),
  );
  await writeFile(join(home, "settings.json"), JSON.stringify(settings));
  const script = join(home, "script.json");
  await writeFile(
    script,
    JSON.stringify([
      {
        content: [
          {
            type: "toolCall",
            name: "mcp__everything__trigger-sampling-request",
            arguments: { prompt: "a haiku", maxTokens: 40 },
          },
        ],
      },
      { content: [{ type: "text", text: "sampled by gyre's model" }] },
      { content: [{ type: "text", text: "done" }] },
    ]),
  );
  const result = await runCli(["--mode", "json", "--provider", "faux", "--faux-script", script, "-p", "go"], {
    cwd,
    env: cliEnv(home),
  });
  const end = result.stdout
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as { type: string; isError?: boolean; result?: { content: { text: string }[] } })
    .find((event) => event.type === "tool_execution_end");
  return { result, end };
}

describe("MCP sampling", () => {
  it("answers server-everything's sampling request with the run's model when mcpSampling is allow", async () => {
    const { result, end } = await runSampling({ mcpSampling: "allow" });
    expect(result.code).toBe(0);
    expect(end?.isError).toBe(false);
    const text = end?.result?.content[0]?.text ?? "";
    expect(text).toContain("LLM sampling result");
    expect(text).toContain("sampled by gyre's model");
    expect(text).toContain('"stopReason": "endTurn"');
  });

  it("denies sampling in a headless run by default and tells the server which setting allows it", async () => {
    const { result, end } = await runSampling({});
    expect(result.code).toBe(0);
    expect(end?.isError).toBe(true);
    expect(end?.result?.content[0]?.text).toContain('"mcpSampling": "allow"');
  });

  it("denies sampling when mcpSampling is deny", async () => {
    const { end } = await runSampling({ mcpSampling: "deny" });
    expect(end?.isError).toBe(true);
    expect(end?.result?.content[0]?.text).toContain('"mcpSampling": "deny"');
  });
});

describe("MCP sampling over RPC", () => {
  const closing = closeAfterEach();

  /**
   * `gyre --mode rpc` on a real model server: the run's first turn calls server-everything's
   * sampling tool; the client answers the approval `ui_request` with `approve`.
   */
  async function sampleOverRpc(approve: boolean) {
    const { cwd, home } = await createWorkspace();
    await writeFile(
      join(home, "mcp.json"),
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } }),
    );
    const model = closing(
      await startFakeModelServer({
        // The sampling request is the one without tools: servers get a bare completion.
        respond: ({ body, index }) =>
          body.tools === undefined
            ? { text: "sampled over rpc" }
            : index === 0
              ? {
                  toolCalls: [
                    {
                      name: "mcp__everything__trigger-sampling-request",
                      arguments: { prompt: "a haiku about pipes", maxTokens: 40 },
                    },
                  ],
                }
              : { text: "done" },
      }),
    );
    const asked: RpcUiRequest[] = [];
    const client = closing(
      new RpcClient({
        command: gyreBin,
        args: ["--provider", "openai", "--model", "gpt-4o", "--no-session"],
        cwd,
        env: cliEnv(home, { OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_API_KEY: "sk-test" }),
        onUiRequest: async (request) => {
          asked.push(request);
          return { value: approve };
        },
      }),
    );
    const toolEnd = client.waitForEvent((event) => event.type === "tool_execution_end");
    const ended = client.waitForEvent((event) => event.type === "agent_end");
    expect((await client.send({ type: "prompt", message: "go" })).success).toBe(true);
    const end = (await toolEnd) as { isError?: boolean; result?: { content: { text?: string }[] } };
    await ended;
    const samplingCalls = model.requests.filter((request) => request.body.tools === undefined);
    return { asked, end, text: end.result?.content[0]?.text ?? "", samplingCalls };
  }

  it("asks the RPC client with a ui_request and answers with the run's model on yes", async () => {
    const { asked, end, text, samplingCalls } = await sampleOverRpc(true);
    expect(asked).toEqual([
      expect.objectContaining({
        type: "ui_request",
        method: "confirm",
        title: 'MCP server "everything" asks to use the model',
        message: expect.stringContaining("a haiku about pipes"),
      }),
    ]);
    expect(end.isError).toBe(false);
    expect(text).toContain("sampled over rpc");
    expect(samplingCalls).toHaveLength(1);
    expect(JSON.stringify(samplingCalls[0]?.body.messages)).toContain("a haiku about pipes");
  }, 60_000);

  it("sends nothing to the model and tells the server the user declined on no", async () => {
    const { asked, end, text, samplingCalls } = await sampleOverRpc(false);
    expect(asked).toHaveLength(1);
    expect(end.isError).toBe(true);
    expect(text).toContain("The user declined the sampling request.");
    expect(samplingCalls).toHaveLength(0);
  }, 60_000);
});

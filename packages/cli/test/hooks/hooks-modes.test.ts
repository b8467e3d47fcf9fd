/**
 * Hooks where no person types: RPC mode, `gyre mcp serve` and `gyre acp`, spawned with the faux
 * model (ACP: a fake OpenAI server, whose requests show what the model was sent). A guard blocks
 * `rm -rf` (exit 2), a Stop hook makes the agent go on once (`decision: block`).
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { RpcClient } from "../../src/modes/rpc/rpc-client.js";
import { initialize, startAcpAgent } from "../acp/acp-agent-process.js";
import { closeAfterEach } from "../helpers/closing.js";
import { startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin } from "../helpers/run-cli.js";

const closing = closeAfterEach();

const guard = `grep -q "rm -rf" && { echo "rm -rf is not allowed here; remove files one by one" >&2; exit 2; }; exit 0`;
const stop = `case "$(cat)" in *'"stop_hook_active":false'*) echo '{"decision":"block","reason":"say what you left in place"}';; esac`;

/** A workspace with a build/ folder, the user's hooks, and a faux script that tries rm -rf, then answers twice. */
async function setup() {
  const { cwd, home } = await createWorkspace();
  await mkdir(join(cwd, "build"));
  const hooks = {
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }],
    Stop: [{ hooks: [{ type: "command", command: stop }] }],
    SessionStart: [{ hooks: [{ type: "command", command: `jq -c . >> "$GYRE_HOME/starts.jsonl"` }] }],
  };
  await writeFile(join(home, "settings.json"), JSON.stringify({ hooks }));
  const script = join(home, "script.json");
  const rm = { type: "toolCall", name: "bash", arguments: { command: "rm -rf build" } };
  await writeFile(
    script,
    JSON.stringify([
      { content: [rm] },
      { content: [{ type: "text", text: "cleaned" }] },
      { content: [{ type: "text", text: "build/ is still there" }] },
    ]),
  );
  return { cwd, home, faux: ["--provider", "faux", "--faux-script", script] };
}

const sources = async (home: string) =>
  (await readFile(join(home, "starts.jsonl"), "utf8"))
    .trim()
    .split("\n")
    .map((line) => (JSON.parse(line) as { source: string }).source);

describe("hooks in RPC mode", () => {
  it("blocks rm -rf, goes on once after Stop blocks, and fires SessionStart clear on new_session", async () => {
    const { cwd, home, faux } = await setup();
    const rpc = closing(new RpcClient({ command: gyreBin, args: faux, cwd, env: cliEnv(home) }));
    const results: string[] = [];
    const users: string[] = [];
    rpc.onEvent((event) => {
      const record = event as { type: string; result?: unknown; message?: { role: string; content: unknown } };
      if (record.type === "tool_execution_end") results.push(JSON.stringify(record.result));
      if (record.type === "message_end" && record.message?.role === "user")
        users.push(JSON.stringify(record.message.content));
    });
    const idle = rpc.waitForEvent((event) => event.type === "session_idle");
    expect((await rpc.send({ type: "prompt", message: "clean up" })).success).toBe(true);
    await idle;
    expect(existsSync(join(cwd, "build"))).toBe(true);
    expect(results[0]).toContain("rm -rf is not allowed here");
    expect(users.at(-1)).toContain("Stop hook feedback: say what you left in place");
    const last = await rpc.send({ type: "get_last_assistant_text" });
    expect(JSON.stringify(last.data)).toContain("build/ is still there");
    expect((await rpc.send({ type: "new_session" })).success).toBe(true);
    expect(await sources(home)).toEqual(["startup", "clear"]);
    expect(await rpc.send({ type: "shutdown" })).toMatchObject({ success: true });
  }, 60_000);
});

describe("hooks under gyre mcp serve", () => {
  it("blocks rm -rf and goes on once after Stop blocks", async () => {
    const { cwd, home, faux } = await setup();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [gyreBin, "mcp", "serve", ...faux],
      cwd,
      env: cliEnv(home) as Record<string, string>,
      stderr: "pipe",
    });
    const client = new Client({ name: "test-client", version: "1.0.0" });
    closing({ close: () => client.close() });
    await client.connect(transport);
    const result = (await client.callTool({ name: "gyre", arguments: { prompt: "clean up" } }, undefined, {
      timeout: 30_000,
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    expect(text).toMatch(/^build\/ is still there/);
    expect(existsSync(join(cwd, "build"))).toBe(true);
    expect(await sources(home)).toEqual(["startup"]);
  }, 60_000);
});

describe("hooks under gyre acp", () => {
  it("blocks rm -rf, the model reads why in the tool result, and goes on once after Stop blocks", async () => {
    const { cwd, home } = await setup();
    const server = closing(
      await startFakeModelServer({
        respond: ({ index }) =>
          index === 0
            ? { toolCalls: [{ name: "bash", arguments: { command: "rm -rf build" } }] }
            : { text: index === 1 ? "cleaned" : "build/ is still there" },
      }),
    );
    const editor = startAcpAgent({
      cwd,
      home,
      args: ["--provider", "openai", "--model", "gpt-4o"],
      env: { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" },
    });
    closing({ close: () => editor.kill() });
    await initialize(editor.agent);
    const { sessionId } = await editor.agent.request("session/new", { cwd, mcpServers: [] });
    const answer = await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "clean up" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    expect(existsSync(join(cwd, "build"))).toBe(true);
    const toolResult = server.requests[1]?.body.messages?.find((message) => message.role === "tool");
    expect(JSON.stringify(toolResult?.content)).toContain("rm -rf is not allowed here; remove files one by one");
    expect(JSON.stringify(server.requests[2]?.body.messages?.at(-1))).toContain(
      "Stop hook feedback: say what you left in place",
    );
    expect(server.requests).toHaveLength(3);
    expect(editor.permissions).toEqual([]);
    expect(await sources(home)).toEqual(["startup"]);
  }, 60_000);
});

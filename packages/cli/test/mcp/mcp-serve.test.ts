import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { cliEnv, createWorkspace, gyreBin } from "../helpers/run-cli.js";

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** `gyre mcp serve` with a faux model, driven by the SDK's own client. */
async function serve(script: unknown[]) {
  const { cwd, home } = await createWorkspace();
  const file = join(home, "script.json");
  await writeFile(file, JSON.stringify(script));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [gyreBin, "mcp", "serve", "--provider", "faux", "--faux-script", file],
    cwd,
    env: cliEnv(home) as Record<string, string>,
    stderr: "pipe",
  });
  const client = new Client({ name: "test-client", version: "1.0.0" });
  clients.push(client);
  await client.connect(transport);
  return { client, cwd, home };
}

const textOf = (result: CallToolResult) =>
  result.content.map((block) => (block.type === "text" ? block.text : "")).join("");

describe("gyre mcp serve", () => {
  it("lists gyre and gyre_reply, runs a task with progress from gyre's events, and continues the session", async () => {
    const { client, cwd, home } = await serve([
      { content: [{ type: "toolCall", name: "write", arguments: { path: "hello.txt", content: "hi\n" } }] },
      { content: [{ type: "text", text: "I wrote hello.txt." }] },
      { content: [{ type: "text", text: "Still here." }] },
    ]);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["gyre", "gyre_reply"]);
    const progress: string[] = [];
    const first = (await client.callTool(
      { name: "gyre", arguments: { prompt: "write hello.txt", maxTurns: 5 } },
      undefined,
      {
        onprogress: (update) => progress.push(update.message ?? ""),
        timeout: 30_000,
      },
    )) as CallToolResult;
    expect(first.isError).toBeFalsy();
    expect(textOf(first)).toMatch(/^I wrote hello\.txt\./);
    const { sessionId } = first.structuredContent as { sessionId: string };
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(progress.map((line) => (JSON.parse(line.replace(/…$/, "")) as { type: string }).type)).toEqual(
      expect.arrayContaining(["agent_start", "turn_start", "tool_execution_start", "tool_execution_end", "agent_end"]),
    );
    expect(progress.find((line) => line.includes("tool_execution_start"))).toContain('"toolName":"write"');
    const { readFile } = await import("node:fs/promises");
    expect(await readFile(join(cwd, "hello.txt"), "utf8")).toBe("hi\n");
    // The faux script is per process: the reply is a new child, so it starts the script again.
    const reply = (await client.callTool(
      { name: "gyre_reply", arguments: { sessionId, prompt: "and now?" } },
      undefined,
      { timeout: 30_000 },
    )) as CallToolResult;
    expect(reply.structuredContent).toMatchObject({ sessionId });
    const { readdir } = await import("node:fs/promises");
    const sessionDirs = await readdir(join(home, "sessions"), { recursive: true });
    const sessionFiles = sessionDirs.filter((name) => name.endsWith(".jsonl"));
    expect(sessionFiles).toHaveLength(1);
    const lines = await readFile(join(home, "sessions", sessionFiles[0] ?? ""), "utf8");
    expect(lines).toContain("write hello.txt");
    expect(lines).toContain("and now?");
  }, 60_000);

  it("returns an error result when the run fails, with the reason", async () => {
    const { client } = await serve([{ content: [{ type: "text", text: "partial" }], error: "upstream exploded" }]);
    const result = (await client.callTool({ name: "gyre", arguments: { prompt: "go" } }, undefined, {
      timeout: 30_000,
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/gyre did not finish the task \(reason: error\)/);
    expect(textOf(result)).toMatch(/upstream exploded/);
  }, 60_000);

  it("continues only sessions it started, and names a cwd that does not exist", async () => {
    const { client } = await serve([]);
    const reply = (await client.callTool({
      name: "gyre_reply",
      arguments: { sessionId: "../../../etc/passwd", prompt: "go on" },
    })) as CallToolResult;
    expect(reply.isError).toBe(true);
    expect(textOf(reply)).toBe(
      'No session "../../../etc/passwd" was started by this gyre mcp serve; pass a sessionId a gyre call returned.',
    );
    const missing = (await client.callTool({
      name: "gyre",
      arguments: { prompt: "go", cwd: "/nonexistent/dir" },
    })) as CallToolResult;
    expect(missing).toMatchObject({ isError: true });
    expect(textOf(missing)).toBe("cwd /nonexistent/dir does not exist (or is not a folder); pass an existing folder.");
  });

  it("answers a 16 MB request line with a JSON-RPC error naming the limit, and keeps serving", async () => {
    const { cwd, home } = await createWorkspace();
    const child = spawn(process.execPath, [gyreBin, "mcp", "serve", "--provider", "faux"], { cwd, env: cliEnv(home) });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    const waitFor = async (pattern: RegExp) => {
      const deadline = Date.now() + 20_000;
      while (!pattern.test(stdout) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return stdout;
    };
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    await waitFor(/"id":1/);
    const huge = { prompt: "x".repeat(16 * 1024 * 1024) };
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "gyre", arguments: huge } });
    send({ jsonrpc: "2.0", id: 3, method: "tools/list" });
    await waitFor(/"id":3/);
    const answers = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: number; error?: { code: number; message: string }; result?: unknown });
    expect(answers.find((answer) => answer.id === 2)?.error).toEqual({
      code: -32600,
      message: "The request was 16 MB, above gyre mcp serve's limit of 10 MB per message; it was not read.",
    });
    expect(answers.find((answer) => answer.id === 3)?.result).toMatchObject({
      tools: [{ name: "gyre" }, { name: "gyre_reply" }],
    });
    child.stdin.end();
    expect(await exited).toBe(0);
  }, 60_000);

  it("rejects a call without a prompt", async () => {
    const { client } = await serve([]);
    const result = (await client.callTool({ name: "gyre", arguments: {} })) as CallToolResult;
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "prompt must be a non-empty string." }],
    });
  });
});

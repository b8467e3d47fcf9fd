/**
 * A session written before tool-call ids were made unique on arrival can hold one assistant
 * message with two calls sharing an id. Resuming it repairs the ids on load, the same way for
 * each call and its result, so the next request is valid.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const usage = {
  input: 1,
  output: 1,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 2,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

function oldSession(cwd: string): string {
  const at = "2026-06-01T00:00:00.000Z";
  const call = (command: string) => ({ type: "toolCall", id: "call_1", name: "bash", arguments: { command } });
  const result = (text: string) => ({
    role: "toolResult",
    toolCallId: "call_1",
    toolName: "bash",
    content: [{ type: "text", text }],
    isError: false,
    timestamp: 3,
  });
  const lines = [
    { type: "session", version: 1, id: "11111111-2222-3333-4444-555555555555", timestamp: at, cwd },
    {
      type: "message",
      id: "aaaaaaa1",
      parentId: null,
      timestamp: at,
      message: { role: "user", content: "list", timestamp: 1 },
    },
    {
      type: "message",
      id: "aaaaaaa2",
      parentId: "aaaaaaa1",
      timestamp: at,
      message: {
        role: "assistant",
        content: [call("echo one"), call("echo two")],
        api: "openai-completions",
        provider: "openai",
        model: "gpt-4o",
        usage,
        stopReason: "toolUse",
        timestamp: 2,
      },
    },
    { type: "message", id: "aaaaaaa3", parentId: "aaaaaaa2", timestamp: at, message: result("one") },
    { type: "message", id: "aaaaaaa4", parentId: "aaaaaaa3", timestamp: at, message: result("two") },
  ];
  return `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
}

describe("an old session with a repeated tool-call id", () => {
  it("is resumed with distinct ids, each result still paired with its own call", async () => {
    const { cwd, home } = await createWorkspace();
    const file = join(home, "old.jsonl");
    await mkdir(home, { recursive: true });
    await writeFile(file, oldSession(cwd));
    server = await startFakeModelServer({ respond: () => ({ text: "resumed" }) });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" });
    const run = await runCli(["--provider", "openai", "--model", "gpt-4o", "--session", file, "-p", "next"], {
      cwd,
      env,
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    type Wire = {
      role: string;
      tool_calls?: { id: string; function: { arguments: string } }[];
      tool_call_id?: string;
      content?: unknown;
    };
    const messages = server.requests[0]?.body.messages as Wire[];
    const calls = messages.find((message) => message.tool_calls)?.tool_calls ?? [];
    const ids = calls.map((call) => call.id);
    expect(new Set(ids).size).toBe(2);
    const results = messages.filter((message) => message.role === "tool");
    expect(results.map((message) => message.tool_call_id)).toEqual(ids);
    expect(JSON.stringify(results[0]?.content)).toContain("one");
    expect(JSON.stringify(results[1]?.content)).toContain("two");
    expect(JSON.parse(calls[1]?.function.arguments ?? "{}")).toEqual({ command: "echo two" });
  });
});

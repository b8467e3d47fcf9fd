import { access } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs one bash call through the CLI and returns what the model got back as its result. */
async function bashResult(command: string): Promise<string> {
  const { cwd, home } = await createWorkspace();
  server = await startFakeModelServer({
    respond: ({ index }) => (index === 0 ? { toolCalls: [{ name: "bash", arguments: { command } }] } : { text: "ok" }),
  });
  const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-t" });
  const result = await runCli(["-p", "--provider", "openai", "--no-session", "run"], { cwd, env });
  expect(result.code).toBe(0);
  const tool = server.requests[1]?.body.messages?.find((message) => message.role === "tool");
  return typeof tool?.content === "string" ? tool.content : JSON.stringify(tool?.content);
}

describe("bash output that is not plain text", () => {
  it("marks binary output and summarises it instead of sending U+FFFD garbage", async () => {
    const text = await bashResult("head -c 20000 /bin/ls");
    expect(text).toContain("binary output (20000 bytes, not text)");
    expect((text.match(/\uFFFD/g) ?? []).length).toBeLessThan(10);
  });

  it("deletes the spill file of a large output when gyre exits", async () => {
    const text = await bashResult("yes line | head -c 2000000");
    const path = /saved to (\S+\.log)/.exec(text)?.[1];
    expect(path).toBeDefined();
    await expect(access(path as string)).rejects.toThrow(/ENOENT/);
  });
});

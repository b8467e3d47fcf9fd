import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("rpc wire under load and odd commands", () => {
  it("answers 1,000 commands sent at once in order, a 10 MB prompt line, and odd commands with clear errors", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
    const child = spawn(process.execPath, [gyreBin, "--mode", "rpc", "--provider", "openai"], {
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" }),
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    const commands = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ id: `s${i}`, type: "get_state" }));
    commands.push(JSON.stringify({ id: "compact", type: "compact" }));
    commands.push(JSON.stringify({ id: "fork", type: "fork", entryId: "deadbeef" }));
    commands.push(JSON.stringify({ id: "big", type: "prompt", message: "x".repeat(10 * 1024 * 1024) }));
    child.stdin.write(`${commands.join("\n")}\n`);
    const deadline = Date.now() + 15_000;
    while (!stdout.includes('"type":"agent_end"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    child.stdin.end();
    expect(await exited).toBe(0);
    const responses = stdout
      .trim()
      .split("\n")
      .map(
        (line) => JSON.parse(line) as { type: string; id?: string; success?: boolean; data?: unknown; error?: string },
      )
      .filter((line) => line.type === "response");
    expect(responses.map((response) => response.id)).toEqual([
      ...Array.from({ length: 1000 }, (_, i) => `s${i}`),
      "compact",
      "fork",
      "big",
    ]);
    expect(responses[1000]).toMatchObject({ success: true, data: { compacted: false } });
    expect(responses[1001]).toMatchObject({ success: false, error: expect.stringContaining("No entry deadbeef") });
    expect(responses[1002]).toMatchObject({ success: true });
    expect(JSON.stringify(server.requests[0]?.body).length).toBeGreaterThan(10 * 1024 * 1024);
  });
});

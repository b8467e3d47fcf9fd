import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { startRawRpc } from "../helpers/raw-rpc.js";
import { createWorkspace } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Line = { type: string; id?: string; success?: boolean; error?: string; problems?: string[]; warnings?: string[] };

/** The response lines of an RPC server's stdout. */
function responsesOf(stdout: string): Line[] {
  const lines = stdout.trim().split("\n");
  return lines.map((line) => JSON.parse(line) as Line).filter((line) => line.type === "response");
}

describe("rpc commands checked against their schemas", () => {
  it("answers a bad command with one failed response naming every problem, and keeps reading", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: () => ({ text: "served after the bad lines" }) });
    const rpc = startRawRpc({ cwd, home, serverUrl: server.url, args: ["--no-session"] });
    const lines = [
      { id: "bad", type: "prompt", message: ["hi"], streamingBehavior: "now" },
      { id: "rewind", type: "rewind", restore: "all" },
      { id: "typo", type: "get_state", verbose: true },
      { id: "good", type: "prompt", message: "hi" },
    ];
    rpc.child.stdin.write(`${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    await rpc.waitFor('"type":"agent_end"');
    expect(await rpc.close()).toBe(0);
    const stdout = rpc.stdout();
    const responses = responsesOf(stdout);
    expect(responses.map((response) => [response.id, response.success])).toEqual([
      ["bad", false],
      ["rewind", false],
      ["typo", true],
      ["good", true],
    ]);
    expect(responses[0]?.problems).toEqual([
      '/message must be a string (got ["hi"])',
      '/streamingBehavior must be one of "steer", "followUp" (got "now")',
    ]);
    expect(responses[0]?.error).toContain('Invalid "prompt" command: /message must be a string');
    expect(responses[1]?.problems).toEqual([
      "/entryId is missing; it must be a string",
      '/restore must be one of "both", "code", "conversation" (got "all")',
    ]);
    expect(responses[2]?.warnings).toEqual(['/verbose is not a field of "get_state"; it is ignored.']);
    expect(server.requests).toHaveLength(1);
    expect(stdout).toContain("served after the bad lines");
  });

  it("names an unknown field in warnings even when the command fails for a missing one (N15)", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: () => ({ text: "unused" }) });
    const rpc = startRawRpc({ cwd, home, serverUrl: server.url, args: ["--no-session"] });
    rpc.child.stdin.write(`${JSON.stringify({ id: "typo", type: "prompt", mesage: "x" })}\n`);
    await rpc.waitFor('"id":"typo"');
    expect(await rpc.close()).toBe(0);
    const response = responsesOf(rpc.stdout()).find((line) => line.id === "typo");
    expect(response).toMatchObject({
      success: false,
      problems: ["/message is missing; it must be a string"],
      warnings: ['/mesage is not a field of "prompt"; it is ignored.'],
    });
    expect(server.requests).toHaveLength(0);
  });
});

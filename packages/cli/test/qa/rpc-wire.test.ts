import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { startRawRpc } from "../helpers/raw-rpc.js";
import { createWorkspace } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("rpc wire under load and odd commands", () => {
  it("answers 1,000 commands sent at once in order, a 10 MB prompt line, and odd commands with clear errors", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
    const rpc = startRawRpc({ cwd, home, serverUrl: server.url });
    const commands = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ id: `s${i}`, type: "get_state" }));
    commands.push(JSON.stringify({ id: "compact", type: "compact" }));
    commands.push(JSON.stringify({ id: "fork", type: "fork", entryId: "deadbeef" }));
    commands.push(JSON.stringify({ id: "big", type: "prompt", message: "x".repeat(10 * 1024 * 1024) }));
    rpc.child.stdin.write(`${commands.join("\n")}\n`);
    await rpc.waitFor('"type":"agent_end"');
    expect(await rpc.close()).toBe(0);
    const responses = rpc
      .stdout()
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

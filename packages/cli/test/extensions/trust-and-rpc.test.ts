import { access, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fingerprintProject } from "../../src/core/project-fingerprint.js";
import { loadContextFiles } from "../../src/core/system-prompt/context-files.js";
import { trustProject } from "../../src/core/trust.js";
import { RpcClient } from "../../src/modes/rpc/rpc-client.js";
import type { RpcUiRequest } from "../../src/modes/rpc/rpc-types.js";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin, runCli } from "../helpers/run-cli.js";
import { example, toolMessages } from "./helpers.js";

let server: FakeModelServer | undefined;
let client: RpcClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  await server?.close();
  server = undefined;
});

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

const markerExtension = (label: string) => `export default function (api) {
  api.on("session_start", async () => {
    const { writeFile } = await import("node:fs/promises");
    await writeFile(${JSON.stringify("ran.txt")}, ${JSON.stringify(label)});
  });
}
`;

describe("project trust", () => {
  it("runs a project extension only once trusted, and asks again after its files change", async () => {
    const { cwd, home } = await createWorkspace();
    const extensionsDir = join(cwd, ".gyre", "extensions");
    await mkdir(extensionsDir, { recursive: true });
    await writeFile(join(extensionsDir, "marker.js"), markerExtension("v1"));
    server = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    const run = (...flags: string[]) =>
      runCli(["-p", "--provider", "openai", "--verbose", ...flags, "hi"], { cwd, env });

    const untrusted = await run();
    expect(untrusted.code).toBe(0);
    expect(await exists(join(cwd, "ran.txt"))).toBe(false);
    expect(untrusted.stderr).toContain("not loaded because it is not trusted; pass --trust");

    expect((await run("--trust")).code).toBe(0);
    expect(await exists(join(cwd, "ran.txt"))).toBe(true);
    await rm(join(cwd, "ran.txt"));

    // What the interactive trust prompt records on "yes": the folder with its extensions' fingerprint.
    const contextFiles = await loadContextFiles({ cwd, gyreHome: home });
    await trustProject({
      gyreHome: home,
      cwd,
      fingerprint: await fingerprintProject({ cwd, gyreHome: home, contextFiles }),
    });
    expect((await run()).code).toBe(0);
    expect(await exists(join(cwd, "ran.txt"))).toBe(true);
    await rm(join(cwd, "ran.txt"));

    await writeFile(join(extensionsDir, "marker.js"), markerExtension("v2"));
    const changed = await run();
    expect(changed.code).toBe(0);
    expect(await exists(join(cwd, "ran.txt"))).toBe(false);
    expect(changed.stderr).toContain(".gyre/ or .claude/ files or context files changed since it was trusted");
  });

  it("loads $GYRE_HOME extensions without asking, and none with --no-extensions", async () => {
    const { cwd, home } = await createWorkspace();
    await mkdir(join(home, "extensions"));
    await writeFile(join(home, "extensions", "marker.js"), markerExtension("home"));
    server = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    expect((await runCli(["-p", "--provider", "openai", "--no-extensions", "hi"], { cwd, env })).code).toBe(0);
    expect(await exists(join(cwd, "ran.txt"))).toBe(false);
    expect((await runCli(["-p", "--provider", "openai", "hi"], { cwd, env })).code).toBe(0);
    expect(await exists(join(cwd, "ran.txt"))).toBe(true);
  });
});

describe("extension questions over RPC", () => {
  async function runGate(answer: boolean) {
    const { cwd, home } = await createWorkspace();
    await mkdir(join(cwd, "victim"));
    server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0 ? { toolCalls: [{ name: "bash", arguments: { command: "rm -rf victim" } }] } : { text: "done" },
    });
    const requests: RpcUiRequest[] = [];
    client = new RpcClient({
      command: gyreBin,
      args: ["--provider", "openai", "--no-session", "-e", example("permission-gate.ts")],
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` }),
      onUiRequest: async (request) => {
        requests.push(request);
        return { value: answer };
      },
    });
    const ended = client.waitForEvent((event) => event.type === "agent_end");
    expect((await client.send({ type: "prompt", message: "clean up" })).success).toBe(true);
    await ended;
    return { cwd, requests, toolText: toolMessages(server.requests[1]?.body)[0] ?? "" };
  }

  it("asks the client to confirm and runs the command on yes", async () => {
    const { cwd, requests, toolText } = await runGate(true);
    expect(requests).toEqual([
      expect.objectContaining({
        type: "ui_request",
        method: "confirm",
        title: 'Run "rm -rf victim" (rm -rf)?',
        requestId: expect.any(String),
      }),
    ]);
    expect(await exists(join(cwd, "victim"))).toBe(false);
    expect(toolText).not.toContain("did not allow");
  });

  it("blocks the command when the client says no", async () => {
    const { cwd, requests, toolText } = await runGate(false);
    expect(requests).toHaveLength(1);
    expect(await exists(join(cwd, "victim"))).toBe(true);
    expect(toolText).toContain("The user did not allow this");
    expect(toolText).not.toContain("nobody could confirm");
  });
});

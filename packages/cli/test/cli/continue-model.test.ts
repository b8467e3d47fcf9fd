import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("gyre -c", () => {
  it("continues on the session's provider, model and base URL when only flags configured them", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: ({ index }) => ({ text: `answer ${index}` }) });
    const env = cliEnv(home);
    const first = await runCli(
      [
        "-p",
        "--provider",
        "openai",
        "--base-url",
        `${server.url}/v1`,
        "--model",
        "gpt-4o-mini",
        "--api-key",
        "x",
        "hi",
      ],
      { cwd, env },
    );
    expect(first.code).toBe(0);
    const second = await runCli(["-p", "-c", "--api-key", "x", "again"], { cwd, env });
    expect(second.stderr).toBe("");
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("answer 1\n");
    expect(server.requests[1]?.body.model).toBe("gpt-4o-mini");
  });

  it("continues on the model the session last used, not the configured default", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: ({ index }) => ({ text: `answer ${index}` }) });
    const models = [
      { id: "fake-model", contextWindow: 32768, maxTokens: 2048 },
      { id: "fake-mini", contextWindow: 16384, maxTokens: 2048 },
    ];
    const lab = { api: "openai-completions", baseUrl: `${server.url}/v1`, apiKeyEnv: "LAB_API_KEY", models };
    await writeFile(join(home, "models.json"), JSON.stringify({ providers: { lab } }));
    await writeFile(
      join(home, "settings.json"),
      JSON.stringify({ defaultProvider: "lab", defaultModel: "fake-model" }),
    );
    const env = cliEnv(home, { LAB_API_KEY: "x" });
    expect((await runCli(["-p", "--model", "fake-mini", "hi"], { cwd, env })).code).toBe(0);
    expect((await runCli(["-p", "-c", "again"], { cwd, env })).code).toBe(0);
    expect(server.requests.map((request) => request.body.model)).toEqual(["fake-mini", "fake-mini"]);
    // A flag still wins over what the session used.
    expect((await runCli(["-p", "-c", "--model", "fake-model", "third"], { cwd, env })).code).toBe(0);
    expect(server.requests[2]?.body.model).toBe("fake-model");
  });
});

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

describe("settings.json values a run cannot use", () => {
  // Each of these used to be accepted and then silently ignored or misread.
  it.each([
    [{ tools: ["read", "nope"] }, /"tools" has unknown nope; choose from/],
    [{ bashTimeoutMs: -5 }, /"bashTimeoutMs" must be a positive number/],
    [{ maxTurns: 2.5 }, /"maxTurns" must be a positive whole number/],
    [{ maxCost: 0 }, /"maxCost" must be a positive number/],
    [{ thinking: "ultra" }, /"thinking" must be one of off, low, medium, high/],
    [{ compaction: { enabled: "yes" } }, /"compaction.enabled" must be true or false/],
    [{ retry: { maxRetries: -1 } }, /"retry.maxRetries" must be a number of at least 0/],
    [{ idleTimeoutMs: "fast" }, /"idleTimeoutMs" must be a number/],
  ])("%j is bad usage naming the file and the field", async (settings, pattern) => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(home, "settings.json"), JSON.stringify(settings));
    const result = await runCli(["-p", "--provider", "openai", "hi"], {
      cwd,
      env: cliEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }),
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(join(home, "settings.json"));
    expect(result.stderr).toMatch(pattern);
  });
});

describe("a settings.json with several problems", () => {
  it("reports every problem at once, not only the first", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(home, "settings.json"), JSON.stringify({ thinking: "ultra", maxTurns: -3, tools: ["nope"] }));
    const result = await runCli(["-p", "--provider", "openai", "hi"], {
      cwd,
      env: cliEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/"thinking" must be one of/);
    expect(result.stderr).toMatch(/"maxTurns" must be a positive whole number/);
    expect(result.stderr).toMatch(/"tools" has unknown nope/);
  });
});

describe("idleTimeoutMs", () => {
  it("ends a model stream that goes silent after the user's idle timeout", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(home, "settings.json"), JSON.stringify({ idleTimeoutMs: 300 }));
    server = await startFakeModelServer({
      respond: () => ({ text: "a partial answer", chunkSize: 4, delayMs: 5_000 }),
    });
    const started = Date.now();
    const result = await runCli(["-p", "--provider", "openai", "hi"], {
      cwd,
      env: cliEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` }),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/sent nothing for 300 ms/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

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
    [{ tools: ["read", "nope"] }, /\/tools\/1 must be one of "read", .* \(got "nope"\)/],
    [{ bashTimeoutMs: -5 }, /\/bashTimeoutMs must be a number from 1 to 2147483647 \(got -5\)/],
    [{ maxTurns: 2.5 }, /\/maxTurns must be a positive whole number \(got 2.5\)/],
    [{ maxCost: 0 }, /\/maxCost must be a positive number \(got 0\)/],
    [{ thinking: "ultra" }, /\/thinking must be one of "off", "low", "medium", "high" \(got "ultra"\)/],
    [{ compaction: { enabled: "yes" } }, /\/compaction\/enabled must be true or false \(got "yes"\)/],
    [{ retry: { maxRetries: -1 } }, /\/retry\/maxRetries must be a number from 0 to 100 \(got -1\)/],
    [{ idleTimeoutMs: "fast" }, /\/idleTimeoutMs must be a number from 1 to 2147483647 \(got "fast"\)/],
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
    expect(result.stderr).toMatch(/settings\.json: \/thinking must be one of/);
    expect(result.stderr).toMatch(/settings\.json: \/maxTurns must be a positive whole number/);
    expect(result.stderr).toMatch(/settings\.json: \/tools\/0 must be one of/);
  });
});

describe("unknown keys in settings.json and models.json", () => {
  it("are named on stderr while the run goes on", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(home, "settings.json"), JSON.stringify({ maxTurn: 3, retry: { maxRetrys: 1 } }));
    server = await startFakeModelServer({ respond: () => ({ text: "still answered" }) });
    const models = {
      lab: { api: "openai-completions", baseUrl: `${server.url}/v1`, apiKey: "x", models: [{ id: "m" }] },
    };
    await writeFile(join(home, "models.json"), JSON.stringify({ providers: models }));
    const result = await runCli(["-p", "--provider", "lab", "--model", "m", "hi"], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("still answered");
    expect(result.stderr).toContain(`${join(home, "settings.json")}: /maxTurn is not a setting gyre knows`);
    expect(result.stderr).toContain(`${join(home, "settings.json")}: /retry/maxRetrys is not a setting gyre knows`);
    expect(result.stderr).toContain(`${join(home, "models.json")}: /providers/lab/apiKey is not a models.json field`);
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

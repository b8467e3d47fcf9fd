import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createModelRegistry } from "@gyre/ai";
import { describe, expect, it } from "vitest";
import { loadModelsConfig } from "./models-config.js";
import { resolveModel } from "./resolve-model.js";
import { loadSettings } from "./settings.js";

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "gyre-config-"));
}

describe("settings", () => {
  it("merges project settings over global ones", async () => {
    const home = await tempDir();
    const cwd = await tempDir();
    await mkdir(join(cwd, ".gyre"));
    await writeFile(
      join(home, "settings.json"),
      JSON.stringify({ defaultProvider: "openai", maxTurns: 5, retry: { maxRetries: 1 } }),
    );
    await writeFile(join(cwd, ".gyre", "settings.json"), JSON.stringify({ maxTurns: 9, retry: { baseDelayMs: 10 } }));
    const { settings, files } = await loadSettings({ gyreHome: home, cwd, includeProject: true });
    expect(settings).toEqual({ defaultProvider: "openai", maxTurns: 9, retry: { maxRetries: 1, baseDelayMs: 10 } });
    expect(files).toHaveLength(2);
  });

  it("names the file and the problem for a broken settings file", async () => {
    const home = await tempDir();
    await writeFile(join(home, "settings.json"), "{ not json");
    await expect(loadSettings({ gyreHome: home, cwd: home, includeProject: false })).rejects.toThrow(
      /settings\.json: is not valid JSON/,
    );
    await writeFile(join(home, "settings.json"), JSON.stringify({ maxTurns: "ten" }));
    await expect(loadSettings({ gyreHome: home, cwd: home, includeProject: false })).rejects.toThrow(
      /\/maxTurns must be a positive whole number \(got "ten"\)/,
    );
  });
});

describe("resolveModel", () => {
  it("names the env var when the key is missing", () => {
    const result = resolveModel({ provider: "anthropic", customProviders: [], env: {} });
    expect(result).toEqual({ ok: false, error: "No API key for anthropic; set ANTHROPIC_API_KEY or pass --api-key." });
  });

  it("needs no key for a loopback base URL and honours OPENAI_BASE_URL", () => {
    const result = resolveModel({
      provider: "openai",
      customProviders: [],
      env: { OPENAI_BASE_URL: "http://127.0.0.1:9/v1/" },
    });
    expect(result.ok && result.value.model.baseUrl).toBe("http://127.0.0.1:9/v1");
  });

  it("accepts an unknown model id with default limits and zero cost", () => {
    const result = resolveModel({ provider: "ollama", model: "qwen3:8b", customProviders: [], env: {} });
    expect(result.ok && result.value.model).toMatchObject({
      id: "qwen3:8b",
      contextWindow: 128000,
      cost: { input: 0 },
    });
  });

  it("uses custom providers from models.json with their key env var", async () => {
    const home = await tempDir();
    await writeFile(
      join(home, "models.json"),
      JSON.stringify({
        providers: {
          lab: {
            api: "openai-completions",
            baseUrl: "https://lab.example/v1",
            apiKeyEnv: "LAB_KEY",
            models: [{ id: "lab-1", contextWindow: 32000, cost: { input: 1, output: 2 } }],
          },
        },
      }),
    );
    const customProviders = (await loadModelsConfig(home)).providers;
    // A registry of the test's own: the process-wide one stays as other tests expect it.
    const models = createModelRegistry();
    const missing = resolveModel({ provider: "lab", model: "lab-1", customProviders, env: {}, models });
    expect(missing.ok).toBe(false);
    const result = resolveModel({ provider: "lab", model: "lab-1", customProviders, env: { LAB_KEY: "k" }, models });
    expect(result.ok && result.value).toMatchObject({
      apiKey: "k",
      model: { contextWindow: 32000, cost: { output: 2 } },
    });
  });

  it("takes a custom provider's first listed model when it names no default", async () => {
    const home = await tempDir();
    const lab = {
      api: "openai-completions",
      baseUrl: "http://127.0.0.1:9/v1",
      models: [{ id: "fake-model" }, { id: "fake-mini" }],
    };
    await writeFile(join(home, "models.json"), JSON.stringify({ providers: { lab } }));
    const customProviders = (await loadModelsConfig(home)).providers;
    const models = createModelRegistry();
    const result = resolveModel({ provider: "lab", customProviders, env: {}, models });
    expect(result.ok && result.value.model).toMatchObject({ provider: "lab", id: "fake-model" });
    const chosen = resolveModel({ provider: "lab", model: "fake-mini", customProviders, env: {}, models });
    expect(chosen.ok && chosen.value.model.id).toBe("fake-mini");
  });

  it("explains that no provider is configured", () => {
    const result = resolveModel({ customProviders: [], env: {} });
    expect(!result.ok && result.error).toMatch(/No model provider is configured/);
  });
});

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadModelsConfig } from "./models-config.js";

let home: string | undefined;
afterEach(async () => {
  if (home) await rm(home, { recursive: true, force: true });
  home = undefined;
});

async function modelsFile(value: unknown): Promise<{ home: string; file: string }> {
  home = await mkdtemp(join(tmpdir(), "gyre-models-config-"));
  const file = join(home, "models.json");
  await writeFile(file, JSON.stringify(value));
  return { home, file };
}

describe("models.json checked against its schema", () => {
  it("names every problem at once with the file and the JSON path", async () => {
    const { home, file } = await modelsFile({
      providers: {
        lab: { api: "openai-chat", baseUrl: "ftp://lab", models: [{ id: "a", contextWindow: "big" }, { name: "b" }] },
      },
    });
    const error = await loadModelsConfig(home).then(
      () => undefined,
      (caught: Error) => caught,
    );
    expect(error?.message.split("\n")).toEqual([
      `Broken models file ${file} (4 problems):`,
      `  ${file}: /providers/lab/api must be one of "openai-completions", "openai-responses", "anthropic-messages", "google-gemini" (got "openai-chat")`,
      `  ${file}: /providers/lab/baseUrl must be an http(s) URL (got "ftp://lab")`,
      `  ${file}: /providers/lab/models/0/contextWindow must be a positive whole number (got "big")`,
      `  ${file}: /providers/lab/models/1/id is missing; it must be a model id (a non-empty string)`,
    ]);
  });

  it("refuses a file without a providers object in one sentence", async () => {
    const { home, file } = await modelsFile({ provider: {} });
    await expect(loadModelsConfig(home)).rejects.toThrow(
      `Broken models file ${file}: /providers is missing; it must be an object {"<name>": {"api", "baseUrl", ...}}`,
    );
  });

  it("loads a valid provider, filling defaults, and warns about keys it does not know", async () => {
    const { home, file } = await modelsFile({
      providers: {
        lab: {
          api: "openai-completions",
          baseUrl: "http://127.0.0.1:9/v1/",
          apiKey: "sk-inline",
          compat: { supportsDeveloperRole: false },
          models: [{ id: "lab-1", cost: { input: 1 }, contextWindo: 5 }],
        },
      },
    });
    const config = await loadModelsConfig(home);
    expect(config.warnings).toEqual([
      `${file}: /providers/lab/apiKey is not a models.json field gyre knows; it is ignored.`,
      `${file}: /providers/lab/models/0/contextWindo is not a models.json field gyre knows; it is ignored.`,
    ]);
    expect(config.providers[0]?.info).toEqual({
      name: "lab",
      api: "openai-completions",
      baseUrl: "http://127.0.0.1:9/v1",
      compat: { supportsDeveloperRole: false },
    });
    expect(config.providers[0]?.models[0]).toMatchObject({
      id: "lab-1",
      name: "lab-1",
      input: ["text"],
      contextWindow: 128000,
      cost: { input: 1, output: 0, cacheRead: 0, cacheWrite: 0 },
    });
  });

  it("yields no providers when there is no file", async () => {
    home = await mkdtemp(join(tmpdir(), "gyre-models-config-"));
    expect(await loadModelsConfig(home)).toEqual({ providers: [], warnings: [] });
  });
});

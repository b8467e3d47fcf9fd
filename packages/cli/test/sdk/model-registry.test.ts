import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createModelRegistry, getProvider } from "@gyre/ai";
import { afterEach, describe, expect, it } from "vitest";
import { createAgentSession } from "../../src/index.js";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { makeTempDirs, type TempDirs } from "./temp-dirs.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function homeWith(providers: Record<string, unknown>): Promise<TempDirs> {
  const dirs = await makeTempDirs();
  cleanups.push(() => dirs.remove());
  await mkdir(dirs.home, { recursive: true });
  await writeFile(join(dirs.home, "models.json"), JSON.stringify({ providers }));
  return dirs;
}

async function server(text: string): Promise<FakeModelServer> {
  const started = await startFakeModelServer({ respond: () => ({ text }) });
  cleanups.push(() => started.close());
  return started;
}

const lab = (url: string, id: string) => ({ api: "openai-completions", baseUrl: `${url}/v1`, models: [{ id }] });

describe("model registries", () => {
  it("keeps two sessions' custom providers apart in one process", async () => {
    const serverA = await server("answer from A");
    const serverB = await server("answer from B");
    const a = await homeWith({ lab: lab(serverA.url, "a-1"), "only-a": lab(serverA.url, "x") });
    const b = await homeWith({ lab: lab(serverB.url, "b-1") });
    const first = await createAgentSession({ cwd: a.cwd, gyreHome: a.home, provider: "lab", modelId: "a-1" });
    cleanups.push(() => first.dispose());
    const second = await createAgentSession({ cwd: b.cwd, gyreHome: b.home, provider: "lab", modelId: "b-1" });
    cleanups.push(() => second.dispose());

    // The same provider name means each session's own endpoint and models.
    await first.session.prompt("hi");
    await second.session.prompt("hi");
    expect(first.session.getLastAssistantText()).toBe("answer from A");
    expect(second.session.getLastAssistantText()).toBe("answer from B");
    expect([serverA.requests.length, serverB.requests.length]).toEqual([1, 1]);
    expect(first.models.getModels("lab").map((model) => model.id)).toEqual(["a-1"]);
    expect(second.models.getModels("lab").map((model) => model.id)).toEqual(["b-1"]);
    expect(first.models.getProvider("only-a")?.baseUrl).toBe(`${serverA.url}/v1`);
    expect(second.models.getProvider("only-a")).toBeUndefined();
    // The process-wide registry saw none of it.
    expect(getProvider("lab")).toBeUndefined();
    await expect(
      createAgentSession({ cwd: b.cwd, gyreHome: b.home, provider: "only-a", modelId: "x" }),
    ).rejects.toThrow(/Unknown provider "only-a"/);
  });

  it("starts every registry with the built-in providers, each on its own maps", () => {
    const one = createModelRegistry();
    const two = createModelRegistry();
    expect(one.getProviders().map((provider) => provider.name)).toEqual(
      two.getProviders().map((provider) => provider.name),
    );
    expect(one.findModel("openai", "gpt-4o")?.contextWindow).toBe(128_000);
    one.registerProvider({ name: "mine", api: "openai-completions", baseUrl: "http://127.0.0.1:9/v1" });
    expect(one.getModel("mine", "any").baseUrl).toBe("http://127.0.0.1:9/v1");
    expect(() => two.getModel("mine", "any")).toThrow(/Unknown provider "mine"/);
  });
});

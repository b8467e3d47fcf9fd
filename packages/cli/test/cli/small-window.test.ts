import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeBody, type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

function isSummaryRequest(body: FakeBody): boolean {
  return JSON.stringify(body.messages?.[0]?.content ?? "").includes("hand-over summary");
}

/** A models.json with one local model of `contextWindow` tokens, as the README shows it. */
async function writeLabModel(home: string, url: string, contextWindow: number): Promise<void> {
  const model = { id: "fake-mini", contextWindow, maxTokens: 2048, cost: { input: 0.5, output: 1.5 } };
  const lab = { api: "openai-completions", baseUrl: `${url}/v1`, apiKeyEnv: "LAB_API_KEY", models: [model] };
  await writeFile(join(home, "models.json"), JSON.stringify({ providers: { lab } }));
}

describe("a model with a small context window", () => {
  it("does not compact before every prompt of a short conversation (16k window)", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({
      respond: ({ body, index }) =>
        isSummaryRequest(body)
          ? { text: "summary" }
          : { text: `hello ${index}`, usage: { prompt_tokens: 200 * (index + 1), completion_tokens: 20 } },
    });
    await writeLabModel(home, server.url, 16_384);
    const env = cliEnv(home, { LAB_API_KEY: "x" });
    for (const [index, text] of ["hello", "hello again", "and hello"].entries()) {
      const result = await runCli(
        ["-p", ...(index > 0 ? ["-c"] : []), "--provider", "lab", "--model", "fake-mini", text],
        {
          cwd,
          env,
        },
      );
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
    }
    expect(server.requests.filter((request) => isSummaryRequest(request.body))).toHaveLength(0);
    expect(server.requests).toHaveLength(3);
  });

  it("still compacts once the context nears the window", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({
      respond: ({ body, index }) =>
        isSummaryRequest(body)
          ? { text: "summary" }
          : {
              // Varied words: one word repeated 6,000 times is a loop the repetition guard stops.
              text: `hello ${index} ${Array.from({ length: 6000 }, (_, word) => `w${word}`).join(" ")}`,
              usage: { prompt_tokens: 13_000, completion_tokens: 2000 },
            },
    });
    await writeLabModel(home, server.url, 16_384);
    const env = cliEnv(home, { LAB_API_KEY: "x" });
    for (const [index, text] of ["one", "two", "three"].entries())
      await runCli(["-p", ...(index > 0 ? ["-c"] : []), "--provider", "lab", "--model", "fake-mini", text], {
        cwd,
        env,
      });
    expect(server.requests.filter((request) => isSummaryRequest(request.body)).length).toBeGreaterThan(0);
  });
});

import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("print mode progress", () => {
  it("says on stderr that it waits to retry, without --verbose", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0
          ? { status: 429, error: "Rate limit reached", headers: { "retry-after": "1" } }
          : { text: "after the retry" },
    });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    const result = await runCli(["-p", "--provider", "openai", "--model", "gpt-4o", "hi"], { cwd, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("after the retry\n");
    expect(result.stderr).toMatch(/^gyre: retry 1\/\d+ in \d+\.\ds: .*429/m);
  });
});

describe("--help", () => {
  it("says --no-extensions keeps the -e extensions, as the docs do", async () => {
    const { cwd, home } = await createWorkspace();
    const result = await runCli(["--help"], { cwd, env: cliEnv(home) });
    expect(result.stdout).toMatch(/--no-extensions skips the discovered\s+ones .* but still loads -e/);
    expect(result.stdout).not.toContain("--no-extensions disables all");
  });
});

describe("@file inside a quoted prompt", () => {
  it("inlines a file named inside the prompt text and leaves other @words alone", async () => {
    const { cwd, home } = await createWorkspace();
    await mkdir(join(cwd, "src"));
    await writeFile(join(cwd, "src", "stats.js"), "export const sum = 1; // inline-marker\n");
    server = await startFakeModelServer({ respond: () => ({ text: "explained" }) });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    const result = await runCli(["-p", "--provider", "openai", "explain @src/stats.js to @someone"], { cwd, env });
    expect(result.code).toBe(0);
    const sent = JSON.stringify(server.requests[0]?.body.messages);
    expect(sent).toContain('<file name=\\"src/stats.js\\">');
    expect(sent).toContain("inline-marker");
    expect(sent).toContain("to @someone");
  });
});

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
    expect(result.stdout).not.toContain("disables all");
  });
});

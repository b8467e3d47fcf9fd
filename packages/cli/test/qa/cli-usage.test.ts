import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseArgs } from "../../src/args.js";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Bad usage: exit 2, nothing on stdout, one `gyre:` line on stderr. */
function expectUsageError(result: { code: number | null; stdout: string; stderr: string }, pattern: RegExp) {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr.trim().split("\n")).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
}

describe("--session that names nothing usable", () => {
  it.each([
    [
      "a directory",
      async (cwd: string) => {
        await mkdir(join(cwd, "dir"));
        return "dir/";
      },
      /is a directory; pass a session/,
    ],
    ["a missing file", async () => "missing/none.jsonl", /No session file at .*none\.jsonl/],
    [
      "a file that is not a session",
      async (cwd: string) => {
        await writeFile(join(cwd, "notes.txt"), "hello\n");
        return "./notes.txt";
      },
      /Cannot open session .*notes\.txt: line 1 is not a session header/,
    ],
    // Opening a FIFO blocked forever.
    [
      "a FIFO",
      async (cwd: string) => {
        execFileSync("mkfifo", [join(cwd, "pipe.jsonl")]);
        return "pipe.jsonl";
      },
      /is not a regular file/,
    ],
    ["an id prefix that matches nothing", async () => "zzzz", /No session id starts with "zzzz"/],
  ])("%s is bad usage (exit 2, one sentence)", async (_name, make, pattern) => {
    const { cwd, home } = await createWorkspace();
    const value = await make(cwd);
    const result = await runCli(["-p", "--provider", "openai", "--session", value, "hi"], {
      cwd,
      env: cliEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }),
    });
    expectUsageError(result, pattern);
  });
});

describe("GYRE_HOME", () => {
  it("pointing at a file is bad usage that names the variable", async () => {
    const { cwd, home } = await createWorkspace();
    const file = join(home, "not-a-dir");
    await writeFile(file, "x");
    const result = await runCli(["-p", "--provider", "openai", "hi"], {
      cwd,
      env: { ...cliEnv(home, { OPENAI_API_KEY: "sk-test" }), GYRE_HOME: file },
    });
    expectUsageError(result, /GYRE_HOME .*not-a-dir is not a directory; point GYRE_HOME at a directory/);
  });
});

describe("flag values", () => {
  it("rejects a --base-url that is not an http(s) URL before calling anything", async () => {
    const { cwd, home } = await createWorkspace();
    const result = await runCli(["-p", "--provider", "openai", "--base-url", "localhost:8000", "hi"], {
      cwd,
      env: cliEnv(home, { OPENAI_API_KEY: "sk-test" }),
    });
    expectUsageError(result, /--base-url must be an http:\/\/ or https:\/\/ URL/);
  });

  it("treats a flag in place of a value as a missing value", () => {
    for (const argv of [
      ["--model", "-c", "hi"],
      ["-m", "-p"],
      ["--provider", "--model", "x"],
    ]) {
      const parsed = parseArgs(argv);
      expect(parsed.ok ? "parsed" : parsed.error).toMatch(/needs a value/);
    }
  });

  it("takes values that only start with dashes", () => {
    const parsed = parseArgs(["--system-prompt", "--- house rules ---", "-p", "hi"]);
    expect(parsed.ok && parsed.value.systemPrompt).toBe("--- house rules ---");
  });

  it("runs a prompt that starts with a dash after --", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
    const result = await runCli(["-p", "--provider", "openai", "--", "-v means verbose?"], {
      cwd,
      env: cliEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` }),
    });
    expect(result.code).toBe(0);
    expect(JSON.stringify(server.requests[0]?.body.messages)).toContain("-v means verbose?");
  });
});

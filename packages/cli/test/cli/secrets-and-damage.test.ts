import { appendFile, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function sessionText(home: string): Promise<{ path: string; text: string }> {
  const dir = join(home, "sessions");
  const [folder] = await readdir(dir);
  const [file] = (await readdir(join(dir, folder!))).filter((name) => name.endsWith(".jsonl"));
  const path = join(dir, folder!, file!);
  return { path, text: await readFile(path, "utf8") };
}

describe("keys without a known name or shape", () => {
  it("keeps a custom provider's key and an --api-key value out of the session file", async () => {
    const { cwd, home } = await createWorkspace();
    const customKey = "labkeyvalue0123456789";
    const flagKey = "plainflagsecret98765";
    server = await startFakeModelServer({
      respond: ({ index }) => ({ text: `echoing ${index === 0 ? customKey : flagKey} back` }),
    });
    await writeFile(
      join(home, "models.json"),
      JSON.stringify({
        providers: {
          lab: { api: "openai-completions", baseUrl: `${server.url}/v1`, apiKeyEnv: "LAB_KEY", models: [{ id: "m" }] },
        },
      }),
    );
    const env = cliEnv(home, { LAB_KEY: customKey });
    const first = await runCli(["-p", "--provider", "lab", "--model", "m", `my key is ${customKey}`], { cwd, env });
    expect(first.code).toBe(0);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${customKey}`);
    const second = await runCli(
      ["-p", "-c", "--provider", "openai", "--base-url", `${server.url}/v1`, "--api-key", flagKey, "again"],
      { cwd, env: cliEnv(home) },
    );
    expect(second.code).toBe(0);
    const { text } = await sessionText(home);
    expect(text).toContain("echoing");
    expect(text).not.toContain(customKey);
    expect(text).not.toContain(flagKey);
  });
});

describe("a damaged session", () => {
  it("reports skipped lines on stderr even in a quiet piped run, and keeps the rest", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: ({ index }) => ({ text: `answer ${index}` }) });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    expect((await runCli(["-p", "--provider", "openai", "first question"], { cwd, env })).code).toBe(0);
    const { path } = await sessionText(home);
    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    lines.splice(1, 0, "this is { not json");
    await writeFile(path, `${lines.join("\n")}\n`);
    await appendFile(path, "");
    const result = await runCli(["-p", "-c", "--provider", "openai", "second question"], { cwd, env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/skipped 1 damaged line\(s\) \(line 2/);
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain("first question");
  });
});

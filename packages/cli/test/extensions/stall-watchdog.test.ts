import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function sessionLines(home: string): Promise<unknown[]> {
  const dir = join(home, "sessions");
  const files: string[] = [];
  const walk = async (path: string): Promise<void> => {
    for (const entry of await readdir(path, { withFileTypes: true })) {
      if (entry.isDirectory()) await walk(join(path, entry.name));
      else if (entry.name.endsWith(".jsonl")) files.push(join(path, entry.name));
    }
  };
  await walk(dir);
  expect(files).toHaveLength(1);
  const text = await readFile(files[0] as string, "utf8");
  expect(text.endsWith("\n")).toBe(true);
  return text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as unknown);
}

describe("the extension stall watchdog", () => {
  it("stops gyre with exit code 7 and names the extension when a tool_call handler never yields", async () => {
    const { cwd, home } = await createWorkspace();
    const extension = join(cwd, "sync-loop.mjs");
    await writeFile(extension, 'export default (api) => api.on("tool_call", () => { while (true) {} });\n');
    server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0 ? { toolCalls: [{ name: "bash", arguments: { command: "echo ran > out.txt" } }] } : { text: "ok" },
    });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, GYRE_EXTENSION_STALL_MS: "1500" });
    const started = Date.now();
    const result = await runCli(["-p", "--provider", "openai", "-e", extension, "loop please"], { cwd, env });
    expect(result.code).toBe(7);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.stderr).toContain(
      `gyre: the extension ${extension} kept gyre busy for 1.5 s without a pause in its "tool_call" handler (a synchronous loop?), so gyre stopped (exit code 7); the session file is intact: fix or remove the extension, then continue with gyre -c.`,
    );
    // The sentence is the last word: nothing Node prints about its inspector follows it.
    expect(result.stderr.trimEnd().endsWith("continue with gyre -c.")).toBe(true);
    expect(server.requests).toHaveLength(1);
    // Every line of the session parses, and the prompt and the model's tool call are in it.
    const lines = JSON.stringify(await sessionLines(home));
    expect(lines).toContain("loop please");
    expect(lines).toContain("echo ran > out.txt");
  });

  it("names an extension whose import never finishes", async () => {
    const { cwd, home } = await createWorkspace();
    const extension = join(cwd, "import-loop.mjs");
    await writeFile(extension, "while (true) {}\nexport default () => {};\n");
    server = await startFakeModelServer({ respond: () => ({ text: "must not run" }) });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, GYRE_EXTENSION_STALL_MS: "1000" });
    const result = await runCli(["-p", "--provider", "openai", "-e", extension, "hi"], { cwd, env });
    expect(result.code).toBe(7);
    expect(result.stderr).toContain(
      `gyre: the extension ${extension} kept gyre busy for 1.0 s without a pause while it was imported`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it("leaves a handler alone that waits longer than the stall time without blocking the event loop", async () => {
    const { cwd, home } = await createWorkspace();
    const extension = join(cwd, "slow.mjs");
    await writeFile(
      extension,
      'export default (api) => api.on("tool_call", () => new Promise((resolve) => setTimeout(() => resolve(undefined), 2000)));\n',
    );
    server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0 ? { toolCalls: [{ name: "todo", arguments: { todos: [] } }] } : { text: "waited" },
    });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, GYRE_EXTENSION_STALL_MS: "500" });
    const result = await runCli(["-p", "--provider", "openai", "--tools", "todo", "-e", extension, "wait"], {
      cwd,
      env,
    });
    expect(result.stderr).not.toContain("kept gyre busy");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("waited\n");
  });
});

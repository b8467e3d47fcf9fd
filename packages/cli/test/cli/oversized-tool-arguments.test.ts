import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function sessionFile(home: string): Promise<string> {
  const dir = join(home, "sessions");
  const [folder] = await readdir(dir);
  const [file] = (await readdir(join(dir, folder!))).filter((name) => name.endsWith(".jsonl"));
  return join(dir, folder!, file!);
}

const FIFTY_MB = 50 * 1024 * 1024;

describe("a 50 MB tool call", () => {
  it("is dropped before it is stored or re-sent, and the model is told to write in pieces", async () => {
    const { cwd, home } = await createWorkspace();
    const content = "a".repeat(FIFTY_MB);
    server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0
          ? {
              toolCalls: [{ id: "call_big", name: "write", arguments: { path: "big.txt", content } }],
              argumentChunkSize: 1024 * 1024,
            }
          : index === 1
            ? {
                toolCalls: [
                  { id: "call_small", name: "write", arguments: { path: "small.txt", content: "part one\n" } },
                ],
              }
            : { text: "wrote it in parts" },
    });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    const result = await runCli(["-p", "--provider", "openai", "--mode", "json", "write a big file"], { cwd, env });
    expect(result.code).toBe(0);
    // The loop went on after the refusal: three model calls, the small write ran, the big one did not.
    expect(server.requests).toHaveLength(3);
    expect(await readFile(join(cwd, "small.txt"), "utf8")).toBe("part one\n");
    await expect(stat(join(cwd, "big.txt"))).rejects.toThrow(/ENOENT/);
    const second = JSON.stringify(server.requests[1]?.body);
    const third = JSON.stringify(server.requests[2]?.body);
    expect(second.length).toBeLessThan(64 * 1024);
    expect(third.length).toBeLessThan(64 * 1024);
    expect(second).toContain("its arguments were 50.0 MB, above the 1.0 MB limit");
    expect(second).toContain("gyreDroppedArguments");
    expect((await stat(await sessionFile(home))).size).toBeLessThan(64 * 1024);
    // The JSON stream shows the call was dropped and never carries the payload whole.
    expect(result.stdout.length).toBeLessThan(4 * 1024 * 1024);
    expect(result.stdout).toContain("gyreDroppedArguments");
  }, 120_000);

  it("follows the maxToolArgumentBytes setting", async () => {
    const { cwd, home } = await createWorkspace();
    const { writeFile } = await import("node:fs/promises");
    await writeFile(join(home, "settings.json"), JSON.stringify({ maxToolArgumentBytes: 2048 }));
    server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0
          ? { toolCalls: [{ name: "write", arguments: { path: "mid.txt", content: "b".repeat(4096) } }] }
          : { text: "ok" },
    });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    const result = await runCli(["-p", "--provider", "openai", "go"], { cwd, env });
    expect(result.code).toBe(0);
    expect(JSON.stringify(server.requests[1]?.body)).toMatch(/its arguments were 4 KB, above the 2 KB limit/);
    await expect(stat(join(cwd, "mid.txt"))).rejects.toThrow(/ENOENT/);
  });
});

import { readdir, readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function sessionFiles(home: string): Promise<string[]> {
  const dir = join(home, "sessions");
  const [folder] = await readdir(dir);
  const names = (await readdir(join(dir, folder as string))).filter((name) => name.endsWith(".jsonl")).sort();
  return names.map((name) => join(dir, folder as string, name));
}

async function setup() {
  const { cwd, home } = await createWorkspace();
  server = await startFakeModelServer({ respond: ({ index }) => ({ text: `answer ${index}` }) });
  const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" });
  const run = (args: string[]) => runCli(["-p", "--provider", "openai", ...args], { cwd, env });
  return { cwd, home, run, server };
}

describe("resuming a damaged session with the CLI", () => {
  it("sends the turns before a lost middle line and names the gap", async () => {
    const { home, run, server } = await setup();
    expect((await run(["remember the code word PELICAN"])).code).toBe(0);
    expect((await run(["-c", "second prompt"])).code).toBe(0);
    expect((await run(["-c", "third prompt"])).code).toBe(0);
    const [path] = await sessionFiles(home);
    const lines = (await readFile(path as string, "utf8")).split("\n");
    const second = lines.findIndex((line) => line.includes("second prompt"));
    lines[second] = "\0".repeat((lines[second] as string).length);
    await writeFile(path as string, lines.join("\n"));
    const result = await run(["-c", "what was the code word?"]);
    expect(result.code).toBe(0);
    const sent = JSON.stringify(server.requests.at(-1)?.body.messages);
    expect(sent).toContain("PELICAN");
    expect(sent).toContain("third prompt");
    expect(result.stderr).toMatch(/is missing \(its line was lost or skipped\); continued from the entry before it/);
  });

  it("falls back from a newer-format newest session to the newest readable one, saying so", async () => {
    const { home, run, server } = await setup();
    expect((await run(["older session prompt"])).code).toBe(0);
    expect((await run(["newer session prompt"])).code).toBe(0);
    const [older, newer] = await sessionFiles(home);
    const lines = (await readFile(newer as string, "utf8")).split("\n");
    lines[0] = (lines[0] as string).replace('"version":1', '"version":99');
    await writeFile(newer as string, lines.join("\n"));
    await utimes(older as string, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const result = await run(["-c", "and now?"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`passed over ${newer}`);
    expect(result.stderr).toMatch(/format version 99/);
    expect(JSON.stringify(server.requests.at(-1)?.body.messages)).toContain("older session prompt");
  });

  it("continues a session with a damaged header in a new file when it is named with --session", async () => {
    const { home, run, server } = await setup();
    expect((await run(["kept across a broken header"])).code).toBe(0);
    const [path] = await sessionFiles(home);
    const text = await readFile(path as string, "utf8");
    const damaged = `{"type":"sess${text.slice(text.indexOf("\n") - 10)}`;
    await writeFile(path as string, damaged);
    const result = await run(["--session", path as string, "go on"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/cannot be continued in place .* continue in a new session/);
    expect(JSON.stringify(server.requests.at(-1)?.body.messages)).toContain("kept across a broken header");
    expect(await readFile(path as string, "utf8")).toBe(damaged);
    expect(await sessionFiles(home)).toHaveLength(2);
  });
});

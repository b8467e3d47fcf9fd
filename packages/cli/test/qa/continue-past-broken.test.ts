import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const newerName = "2099-01-01T00-00-00-000Z_00000000-0000-4000-8000-000000000001.jsonl";

async function workspaceWithOneSession() {
  const { cwd, home } = await createWorkspace();
  server = await startFakeModelServer({ respond: ({ index }) => ({ text: `answer ${index}` }) });
  const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" });
  expect((await runCli(["-p", "--provider", "openai", "remember 42"], { cwd, env })).code).toBe(0);
  const sessionsDir = join(home, "sessions");
  const [folder] = await readdir(sessionsDir);
  return { cwd, env, dir: join(sessionsDir, folder as string), sessionsDir };
}

describe("--continue and --session find the right session", () => {
  it.each([
    ["empty", ""],
    ["torn header", '{"type":"sess'],
  ])("-c passes over a newer %s file, resumes the older good session and says so", async (_, text) => {
    const { cwd, env, dir } = await workspaceWithOneSession();
    await writeFile(join(dir, newerName), text);
    const result = await runCli(["-c", "-p", "--provider", "openai", "what number?"], { cwd, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("answer 1\n");
    expect(result.stderr).toContain(`--continue passed over ${join(dir, newerName)}`);
    const sent = (server?.requests[1]?.body.messages ?? []).map((m: { role: string; content: unknown }) => m.content);
    expect(sent).toContain("remember 42");
    expect(await readFile(join(dir, newerName), "utf8")).toBe(text); // never rewritten
  });

  it("-c passes over a newer session of a future format version, says so, and resumes the older one", async () => {
    const { cwd, env, dir } = await workspaceWithOneSession();
    const header = { type: "session", version: 99, id: "00000000-0000-4000-8000-000000000001", timestamp: "x", cwd };
    await writeFile(join(dir, newerName), `${JSON.stringify(header)}\n`);
    const result = await runCli(["-c", "-p", "--provider", "openai", "hi"], { cwd, env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/passed over .*format version 99.*update gyre/);
    expect(JSON.stringify(server?.requests[1]?.body.messages)).toContain("remember 42");
  });

  it("--session with an id prefix shared by sessions of two folders names both and opens neither", async () => {
    const { cwd, env, dir, sessionsDir } = await workspaceWithOneSession();
    const other = join(sessionsDir, "other-folder");
    await mkdir(other);
    const [mine] = await readdir(dir);
    const id = (mine as string).slice(25, 61);
    const twin = `${id.slice(0, 6)}00-0000-4000-8000-000000000002`;
    const header = { type: "session", version: 1, id: twin, timestamp: new Date().toISOString(), cwd: "/else" };
    await writeFile(join(other, `2020-01-01T00-00-00-000Z_${twin}.jsonl`), `${JSON.stringify(header)}\n`);
    const result = await runCli(["--session", id.slice(0, 6), "-p", "--provider", "openai", "hi"], { cwd, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`matches 2 sessions`);
    expect(result.stderr).toContain(id);
    expect(result.stderr).toContain(twin);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

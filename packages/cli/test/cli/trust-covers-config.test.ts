import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fingerprintProject } from "../../src/core/project-fingerprint.js";
import { loadContextFiles } from "../../src/core/system-prompt/context-files.js";
import { trustProject } from "../../src/core/trust.js";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** What the interactive "yes" records: the folder with the fingerprint of what it applies. */
async function trustNow(cwd: string, home: string): Promise<void> {
  const contextFiles = await loadContextFiles({ cwd, gyreHome: home });
  await trustProject({
    gyreHome: home,
    cwd,
    fingerprint: await fingerprintProject({ cwd, gyreHome: home, contextFiles }),
  });
}

async function setup(gyreHome?: string, projectDir?: string) {
  const workspace = await createWorkspace();
  const home = gyreHome ?? workspace.home;
  const cwd = projectDir ?? workspace.cwd;
  await mkdir(cwd, { recursive: true });
  await mkdir(home, { recursive: true });
  server = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
  const env = cliEnv(workspace.home, { GYRE_HOME: home, OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-t" });
  const run = () => runCli(["-p", "--provider", "openai", "--verbose", "--no-session", "hi"], { cwd, env });
  const lastSystem = () => JSON.stringify(server?.requests.at(-1)?.body.messages?.[0]);
  return { cwd, home, run, lastSystem, root: join(workspace.home, "..") };
}

describe("a trusted folder whose configuration changes", () => {
  it.each([
    [".gyre/SYSTEM.md", "SYSTEM.md"],
    [".gyre/APPEND_SYSTEM.md", "APPEND_SYSTEM.md"],
    ["AGENTS.md", "AGENTS.md"],
  ])("is asked about again when %s changes, and the change is not applied", async (relative) => {
    const { cwd, home, run, lastSystem } = await setup();
    await mkdir(join(cwd, ".gyre"), { recursive: true });
    await writeFile(join(cwd, relative), "MARKER-ONE");
    await trustNow(cwd, home);
    expect((await run()).code).toBe(0);
    expect(lastSystem()).toContain("MARKER-ONE");
    await writeFile(join(cwd, relative), "MARKER-TWO");
    const changed = await run();
    expect(changed.code).toBe(0);
    expect(lastSystem()).not.toContain("MARKER-TWO");
    expect(changed.stderr).toContain("changed since it was trusted");
  });

  it("is asked about again when .gyre/settings.json changes, and the new settings are not applied", async () => {
    const { cwd, home, run } = await setup();
    await mkdir(join(cwd, ".gyre"));
    await writeFile(join(cwd, ".gyre", "settings.json"), JSON.stringify({ tools: ["read"] }));
    await trustNow(cwd, home);
    expect((await run()).code).toBe(0);
    const tools = () => (server?.requests.at(-1)?.body.tools as { function: { name: string } }[] | undefined) ?? [];
    expect(tools().map((tool) => tool.function.name)).toEqual(["read"]);
    await writeFile(join(cwd, ".gyre", "settings.json"), JSON.stringify({ tools: ["read", "ls"] }));
    const changed = await run();
    expect(changed.stderr).toContain("changed since it was trusted");
    expect(tools().map((tool) => tool.function.name)).not.toContain("ls");
  });
});

describe("a trusted folder whose .claude/ setup changes", () => {
  it("does not run a hook added to .claude/settings.json after the trust, under --claude-compat", async () => {
    const { cwd, home, root } = await setup();
    const hook = (marker: string) =>
      JSON.stringify({
        hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${join(root, marker)}` }] }] },
      });
    await mkdir(join(cwd, ".claude"));
    await writeFile(join(cwd, ".claude", "settings.json"), hook("hook-one"));
    await trustNow(cwd, home);
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server?.url}/v1`, OPENAI_API_KEY: "sk-t" });
    const run = () =>
      runCli(["-p", "--provider", "openai", "--verbose", "--claude-compat", "--no-session", "hi"], { cwd, env });
    expect((await run()).code).toBe(0);
    expect(existsSync(join(root, "hook-one"))).toBe(true);
    await writeFile(join(cwd, ".claude", "settings.json"), hook("hook-two"));
    const changed = await run();
    expect(changed.code).toBe(0);
    expect(changed.stderr).toContain("changed since it was trusted");
    expect(existsSync(join(root, "hook-two"))).toBe(false);
  });
});

describe("whole path segments", () => {
  it("does not treat <base>/.gyre-evil/AGENTS.md as the user's own context file when GYRE_HOME is <base>/.gyre", async () => {
    const base = (await createWorkspace()).home;
    const evil = join(base, ".gyre-evil");
    const { run, lastSystem } = await setup(join(base, ".gyre"), evil);
    await writeFile(join(evil, "AGENTS.md"), "EVIL-INSTRUCTIONS");
    await writeFile(join(base, ".gyre", "AGENTS.md"), "USER-OWN-NOTES");
    expect((await run()).code).toBe(0);
    expect(lastSystem()).toContain("USER-OWN-NOTES");
    expect(lastSystem()).not.toContain("EVIL-INSTRUCTIONS");
  });
});

describe("start-up in an untrusted folder", () => {
  it("does not hang on an AGENTS.md that is a FIFO and reads no more than the cap of a huge CLAUDE.md", async () => {
    const { cwd, run } = await setup();
    execFileSync("mkfifo", [join(cwd, "AGENTS.md")]);
    const started = Date.now();
    const result = await run();
    expect(result.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("caps a large trusted context file and says so", async () => {
    const { cwd, home, run, lastSystem } = await setup();
    await writeFile(join(cwd, "AGENTS.md"), `${"x".repeat(2_000_000)}TAIL-MARKER`);
    await trustNow(cwd, home);
    expect((await run()).code).toBe(0);
    expect(lastSystem()).not.toContain("TAIL-MARKER");
    expect(lastSystem()).toContain("only its first 262144 were loaded");
    expect(lastSystem().length).toBeLessThan(400_000);
  });
});

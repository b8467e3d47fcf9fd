/** The CLI end to end: sandboxed bash, approvals in print and RPC mode, rules, plan mode. */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeBody, type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Tool-result texts of a request body (OpenAI chat shape). */
function toolResults(body: FakeBody | undefined): string[] {
  return (body?.messages ?? []).filter((message) => message.role === "tool").map((message) => String(message.content));
}

/** A model that makes `calls` in its first reply, then says "done". */
async function scripted(...calls: { name: string; arguments: unknown }[]): Promise<FakeModelServer> {
  server = await startFakeModelServer({
    respond: ({ index }) => (index === 0 ? { toolCalls: calls } : { text: "done" }),
  });
  return server;
}

describe("gyre -p with the default sandbox", () => {
  it("keeps gyre's provider key out of bash, even through /proc/$PPID/environ", async () => {
    const { cwd, home } = await createWorkspace();
    const key = "sk-sandbox-test-4242424242";
    const fake = await scripted({
      name: "bash",
      arguments: { command: "tr '\\0' '\\n' < /proc/$PPID/environ; env; cat /proc/1/environ" },
    });
    const env = cliEnv(home, {
      OPENAI_BASE_URL: `${fake.url}/v1`,
      OPENAI_API_KEY: key,
      DATABASE_URL: `postgres://u:${key}@h/db`,
    });
    const result = await runCli(["-p", "--provider", "openai", "go"], { cwd, env });
    expect(result.code).toBe(0);
    const [output] = toolResults(fake.requests[1]?.body);
    expect(output).toContain("PATH=");
    expect(output).not.toContain(key);
  });

  it("denies escalation and protected-file writes in print mode, with a reason, and changes nothing", async () => {
    const { cwd, home } = await createWorkspace();
    await mkdir(join(cwd, ".git"));
    await writeFile(join(cwd, ".git", "config"), "[core]\n");
    const fake = await scripted(
      { name: "write", arguments: { path: ".git/config", content: '[core]\n\tfsmonitor = "touch PWNED"\n' } },
      { name: "write", arguments: { path: ".gyre/settings.json", content: "{}" } },
      { name: "bash", arguments: { command: `touch ${home}/escaped`, escalate: true, justification: "needs it" } },
    );
    const result = await runCli(["-p", "--provider", "openai", "go"], {
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${fake.url}/v1` }),
    });
    expect(result.code).toBe(0);
    const results = toolResults(fake.requests[1]?.body);
    expect(results[0]).toContain(".git/config is a protected path (git runs hooks and config from it)");
    expect(results[0]).toContain("this run does not ask (--approval deny");
    expect(results[1]).toContain(".gyre/settings.json is a protected path");
    expect(results[2]).toContain("the command asks to run outside the sandbox (needs it)");
    expect(await readFile(join(cwd, ".git", "config"), "utf8")).toBe("[core]\n");
    await expect(stat(join(cwd, ".gyre", "settings.json"))).rejects.toThrow();
    await expect(stat(join(home, "escaped"))).rejects.toThrow();
    // The gate decides before the checkpoint: calls it blocked change nothing, so none was taken.
    await expect(stat(join(home, "checkpoints"))).rejects.toThrow();
  });

  it("takes a checkpoint before a file-changing call the gate allows", async () => {
    const { cwd, home } = await createWorkspace();
    const fake = await scripted({ name: "write", arguments: { path: "notes.txt", content: "new\n" } });
    const result = await runCli(["-p", "--provider", "openai", "go"], {
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${fake.url}/v1` }),
    });
    expect(result.code).toBe(0);
    expect(await readFile(join(cwd, "notes.txt"), "utf8")).toBe("new\n");
    expect((await stat(join(home, "checkpoints"))).isDirectory()).toBe(true);
  });

  it("applies a deny rule to every part of a compound command", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(home, "settings.json"), JSON.stringify({ permissions: { deny: ["bash(rm:*)"] } }));
    await writeFile(join(cwd, "keep.txt"), "x");
    const fake = await scripted({ name: "bash", arguments: { command: "ls && true; echo $(rm -f keep.txt)" } });
    await runCli(["-p", "--provider", "openai", "go"], {
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${fake.url}/v1` }),
    });
    expect(toolResults(fake.requests[1]?.body)[0]).toContain("matches the rule deny: bash(rm:*)");
    expect(await readFile(join(cwd, "keep.txt"), "utf8")).toBe("x");
  });

  it("rejects a broken sandbox or permissions block at start-up", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(home, "settings.json"), JSON.stringify({ sandbox: { mode: "strict" } }));
    const result = await runCli(["-p", "--provider", "faux", "hi"], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '/sandbox/mode must be one of "workspace-write", "read-only", "off" (got "strict")',
    );
  });

  it("fails closed without bwrap on PATH: one start-up notice, and bash refuses to run (D22)", async () => {
    const { cwd, home } = await createWorkspace();
    const bin = await mkdtemp("/var/tmp/gyre-nobwrap-");
    try {
      for (const name of ["bash", "sh", "touch"]) await symlink(`/usr/bin/${name}`, join(bin, name));
      const fake = await scripted({ name: "bash", arguments: { command: "touch ran.txt" } });
      const env = { ...cliEnv(home, { OPENAI_BASE_URL: `${fake.url}/v1` }), PATH: bin };
      const result = await runCli(["-p", "--provider", "openai", "go"], { cwd, env });
      expect(result.stderr.match(/The bash sandbox is unavailable/g)).toHaveLength(1);
      expect(toolResults(fake.requests[1]?.body)[0]).toContain("bubblewrap (bwrap) is not installed");
      expect(toolResults(fake.requests[1]?.body)[0]).toContain("--sandbox off");
      await expect(stat(join(cwd, "ran.txt"))).rejects.toThrow();
      const off = await scripted({ name: "bash", arguments: { command: "touch ran.txt" } });
      await runCli(["-p", "--sandbox", "off", "--provider", "openai", "go"], {
        cwd,
        env: { ...env, OPENAI_BASE_URL: `${off.url}/v1` },
      });
      expect((await stat(join(cwd, "ran.txt"))).isFile()).toBe(true);
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });

  it("plans in --plan: write not offered, bash read-only, the model told", async () => {
    const { cwd, home } = await createWorkspace();
    const fake = await scripted(
      { name: "write", arguments: { path: "a.txt", content: "x" } },
      { name: "bash", arguments: { command: "touch b.txt" } },
    );
    await runCli(["-p", "--plan", "--provider", "openai", "go"], {
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${fake.url}/v1` }),
    });
    expect(JSON.stringify(fake.requests[0]?.body.messages)).toContain("You are in plan mode");
    // Withheld means not offered at all: the request lists no write or edit tool.
    const offered = JSON.stringify((fake.requests[0]?.body as { tools?: unknown } | undefined)?.tools);
    expect(offered).toContain('"bash"');
    expect(offered).not.toContain('"write"');
    expect(offered).not.toContain('"edit"');
    const [write, bash] = toolResults(fake.requests[1]?.body);
    // The model learns the tool exists but waits for the user, not that it is missing.
    expect(write).toContain(
      '`write` is unavailable in plan mode (it could change files or the world). Finish investigating and present your plan; the user leaves plan mode to let you carry it out. Available tools: "read", "bash"',
    );
    expect(write).not.toContain("does not exist");
    expect(bash).toContain("Read-only file system");
    await expect(stat(join(cwd, "a.txt"))).rejects.toThrow();
  });
  it("offers a subagent started in plan mode no write or edit either", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0
          ? { toolCalls: [{ name: "task", arguments: { description: "look", prompt: "look around" } }] }
          : { text: "done" },
    });
    await runCli(["-p", "--plan", "--tools", "read,write,edit,bash,task", "--provider", "openai", "go"], {
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` }),
    });
    const sub = server.requests[1]?.body as
      | { tools?: { function?: { name?: string } }[]; messages?: unknown[] }
      | undefined;
    expect(JSON.stringify(sub?.messages)).toContain("look around");
    const names = (sub?.tools ?? []).map((tool) => tool.function?.name);
    expect(names).toContain("read");
    expect(names).not.toContain("write");
    expect(names).not.toContain("edit");
  });
});

describe("gyre --mode rpc approvals", () => {
  it("sends approval_request and runs the escalated command after approval_response allow_always", async () => {
    const { cwd, home } = await createWorkspace();
    const target = join(home, "approved.txt");
    const fake = await scripted({
      name: "bash",
      arguments: { command: `touch ${target}`, escalate: true, justification: "write the file" },
    });
    const child = spawn(process.execPath, [gyreBin, "--mode", "rpc", "--provider", "openai"], {
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${fake.url}/v1` }),
    });
    const events: Record<string, unknown>[] = [];
    let buffer = "";
    const waitFor = (predicate: (event: Record<string, unknown>) => boolean) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const check = () => {
          const found = events.find(predicate);
          if (found) resolve(found);
          else setTimeout(check, 20);
        };
        check();
      });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      for (let at = buffer.indexOf("\n"); at !== -1; at = buffer.indexOf("\n")) {
        events.push(JSON.parse(buffer.slice(0, at)) as Record<string, unknown>);
        buffer = buffer.slice(at + 1);
      }
    });
    child.stdin.write(`${JSON.stringify({ type: "prompt", message: "go" })}\n`);
    const request = await waitFor((event) => event.type === "approval_request");
    expect(request).toMatchObject({ toolName: "bash", reason: expect.stringContaining("write the file") });
    child.stdin.write(`${JSON.stringify({ type: "approval_response", id: request.id, decision: "allow_always" })}\n`);
    await waitFor((event) => event.type === "agent_end");
    child.stdin.end();
    await new Promise((resolve) => child.once("close", resolve));
    expect((await stat(target)).isFile()).toBe(true);
    // An untrusted folder's settings are not read: the answer goes to the user's, as a prefix rule.
    const saved = JSON.parse(await readFile(join(home, "settings.json"), "utf8"));
    expect(saved.permissions.approved).toEqual(["bash(touch:*)"]);
  });
});

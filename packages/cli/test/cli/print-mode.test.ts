import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/core/session/session-manager.js";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("gyre -p", () => {
  it("runs a tool round trip over the OpenAI wire protocol and prints only the final answer", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0
          ? {
              text: "I'll write it.",
              toolCalls: [{ name: "write", arguments: { path: "hello.txt", content: "hi there" } }],
            }
          : { text: "Wrote hello.txt." },
    });
    const result = await runCli(["-p", "--provider", "openai", "--model", "gpt-4o", "create hello.txt"], {
      cwd,
      env: cliEnv(home, { OPENAI_API_KEY: "sk-test-key-123456789", OPENAI_BASE_URL: `${server.url}/v1` }),
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Wrote hello.txt.\n");
    expect(await readFile(join(cwd, "hello.txt"), "utf8")).toBe("hi there");
    const second = server.requests[1]?.body;
    const toolMessage = second?.messages?.find((message) => message.role === "tool");
    expect(toolMessage).toBeDefined();
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-test-key-123456789");
  });

  it("runs a tool round trip over the Anthropic wire protocol", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(cwd, "notes.md"), "alpha\nbeta\n");
    server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0
          ? { toolCalls: [{ name: "edit", arguments: { path: "notes.md", oldText: "beta", newText: "gamma" } }] }
          : { text: "Edited." },
    });
    const result = await runCli(["-p", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "edit notes"], {
      cwd,
      env: cliEnv(home, { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url }),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Edited.\n");
    expect(await readFile(join(cwd, "notes.md"), "utf8")).toBe("alpha\ngamma\n");
    expect(server.requests[0]?.path).toBe("/v1/messages");
  });

  it("appends piped stdin to the prompt", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
    const result = await runCli(["--provider", "openai", "summarise:"], {
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` }),
      input: "piped text here",
    });
    expect(result.code).toBe(0);
    const user = server.requests[0]?.body.messages?.find((message) => message.role === "user");
    expect(JSON.stringify(user?.content)).toContain("summarise:\\n\\npiped text here");
  });

  it("resumes the newest session of the folder with --continue", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: ({ index }) => ({ text: `answer ${index}` }) });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    expect((await runCli(["-p", "--provider", "openai", "first question"], { cwd, env })).code).toBe(0);
    const second = await runCli(["-p", "-c", "--provider", "openai", "second question"], { cwd, env });
    expect(second.code).toBe(0);
    const sent = JSON.stringify(server.requests[1]?.body.messages);
    expect(sent).toContain("first question");
    expect(sent).toContain("answer 0");
    expect(sent).toContain("second question");
  });

  it("puts context files into the system prompt, general first, when the folder is trusted", async () => {
    const { cwd, home } = await createWorkspace();
    const nested = join(cwd, "pkg");
    await mkdir(nested);
    await writeFile(join(home, "AGENTS.md"), "HOME-RULE");
    await writeFile(join(cwd, "AGENTS.md"), "PROJECT-RULE");
    await writeFile(join(nested, "CLAUDE.md"), "PACKAGE-RULE");
    server = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    expect((await runCli(["-p", "--trust", "--provider", "openai", "hi"], { cwd: nested, env })).code).toBe(0);
    const system = JSON.stringify(server.requests[0]?.body.messages?.[0]);
    const order = ["HOME-RULE", "PROJECT-RULE", "PACKAGE-RULE"].map((rule) => system.indexOf(rule));
    expect(order.every((position) => position >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect((await runCli(["-p", "--provider", "openai", "hi"], { cwd: nested, env })).code).toBe(0);
    const untrusted = JSON.stringify(server.requests[1]?.body.messages?.[0]);
    expect(untrusted).toContain("HOME-RULE");
    expect(untrusted).not.toContain("PROJECT-RULE");
  });
});

describe("exit codes and errors", () => {
  it("exits 2 with one sentence for a bad flag", async () => {
    const { cwd, home } = await createWorkspace();
    const result = await runCli(["--frobnicate"], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/Unknown option --frobnicate; run gyre --help/);
  });

  it("exits 2 for --resume outside the interactive mode and says what to use", async () => {
    const { cwd, home } = await createWorkspace();
    const result = await runCli(["-p", "--resume", "hi"], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("pass --session <id>");
  });

  it("exits 2 naming the env var when the key is missing", async () => {
    const { cwd, home } = await createWorkspace();
    const result = await runCli(["-p", "--provider", "anthropic", "hi"], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("ANTHROPIC_API_KEY");
  });

  it("exits 1 with the provider's own message on a provider error", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: () => ({ status: 400, error: "model 'nope' does not exist" }) });
    const result = await runCli(["-p", "--provider", "openai", "--model", "nope", "hi"], {
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` }),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("model 'nope' does not exist");
  });

  it("exits 1 with a sentence naming the budget when --max-turns ends the run", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({
      respond: () => ({ toolCalls: [{ name: "bash", arguments: { command: "echo again" } }] }),
    });
    const result = await runCli(["-p", "--max-turns", "2", "--provider", "openai", "loop forever"], {
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` }),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/turn/i);
    expect(server.requests).toHaveLength(2);
  });
});

describe("a session open in another gyre", () => {
  it("refuses to append to a locked session, says how to fork, and --fork continues in a copy", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: ({ index }) => ({ text: `answer ${index}` }) });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    expect((await runCli(["-p", "--provider", "openai", "first"], { cwd, env })).code).toBe(0);
    const dir = join(home, "sessions");
    const [folder] = await readdir(dir);
    const [original] = (await readdir(join(dir, folder!))).filter((name) => name.endsWith(".jsonl"));
    const held = await SessionManager.open(join(dir, folder!, original!));
    try {
      const locked = await runCli(["-p", "-c", "--provider", "openai", "second"], { cwd, env });
      expect(locked.code).toBe(1);
      expect(locked.stderr).toContain("--fork");
      const forked = await runCli(["-p", "-c", "--fork", "--provider", "openai", "second"], { cwd, env });
      expect(forked.code).toBe(0);
      expect(JSON.stringify(server.requests.at(-1)?.body.messages)).toContain("first");
      const files = (await readdir(join(dir, folder!))).filter((name) => name.endsWith(".jsonl"));
      expect(files).toHaveLength(2);
      const copy = files.find((name) => name !== original)!;
      const header = JSON.parse((await readFile(join(dir, folder!, copy), "utf8")).split("\n")[0]!) as {
        parentSession?: string;
      };
      expect(header.parentSession).toBe(join(dir, folder!, original!));
    } finally {
      await held.close();
    }
  });
});

import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, type FakeReply, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(reply: FakeReply) {
  const { cwd, home } = await createWorkspace();
  server = await startFakeModelServer({ respond: () => reply });
  const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-t" });
  return { cwd, home, env };
}

describe("answers that deliver nothing usable", () => {
  it.each([
    ["an empty answer", { text: "" }, /returned an empty answer/, ""],
    ["a reasoning-only answer", { text: "", reasoning: "I thought hard" }, /only reasoning and no answer text/, ""],
    [
      "a length-cut answer",
      { text: "The first half of", finishReason: "length" },
      /cut off at the model's output limit/,
      "The first half of\n",
    ],
  ])("reports %s on stderr with exit 1 in print mode", async (_, reply, message, stdout) => {
    const { cwd, env } = await setup(reply as FakeReply);
    const result = await runCli(["-p", "--provider", "openai", "--no-session", "hi"], { cwd, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe(stdout);
  });

  it("ends JSON mode with an answer_problem line for an empty answer", async () => {
    const { cwd, env } = await setup({ text: "" });
    const result = await runCli(["--mode", "json", "--provider", "openai", "--no-session", "hi"], { cwd, env });
    expect(result.code).toBe(1);
    const last = JSON.parse(result.stdout.trimEnd().split("\n").at(-1) as string);
    expect(last).toMatchObject({ type: "answer_problem", message: expect.stringMatching(/empty answer/) });
  });
});

describe("what print mode writes to stdout", () => {
  it("redacts the key even when the model repeats it, and reads the key from --api-key-file", async () => {
    const key = "filekey-0123456789abcdef";
    const { cwd, home } = await setup({ text: `your key is ${key}, right?` });
    const keyFile = join(home, "key.txt");
    await writeFile(keyFile, `${key}\n`, { mode: 0o600 });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server?.url}/v1` });
    const result = await runCli(["-p", "--provider", "openai", "--no-session", "--api-key-file", keyFile, "hi"], {
      cwd,
      env,
    });
    expect(result.code).toBe(0);
    expect(server?.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
    expect(result.stdout).not.toContain(key);
    expect(result.stdout).toContain("[REDACTED]");
  });

  it("refuses a missing --api-key-file with one sentence and exit 2", async () => {
    const { cwd, env, home } = await setup({ text: "x" });
    const result = await runCli(["-p", "--provider", "openai", "--api-key-file", join(home, "nope"), "hi"], {
      cwd,
      env,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--api-key-file .*nope cannot be read \(ENOENT\)/);
  });

  it("makes OSC 52, CSI and NUL inert when stdout is a terminal, and leaves piped output as it is", async () => {
    const hostile = "copy \u001b]52;c;ZXZpbA==\u0007 clear \u001b[2J nul \u0000 end";
    const { cwd, env } = await setup({ text: hostile });
    const args = ["-p", "--provider", "openai", "--no-session", "hi"];
    const command = [process.execPath, gyreBin, ...args].map((part) => `'${part}'`).join(" ");
    const tty = await new Promise<string>((resolve, reject) =>
      execFile("script", ["-qec", command, "/dev/null"], { cwd, env, encoding: "latin1" }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    expect(tty).toContain("copy");
    expect(tty).not.toContain("\u001b]52");
    expect(tty).not.toContain("\u001b[2J");
    expect(tty).not.toContain("\u0000");
    const piped = await runCli(args, { cwd, env });
    expect(piped.stdout).toBe(`${hostile}\n`);
  });
});

import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin } from "../helpers/run-cli.js";

type Run = { code: number | null; stdout: string; stderr: string; ms: number };

/**
 * Spawns the real CLI with a stdin pipe that `feed` may write to; the pipe is held open (silent)
 * until the process ends unless `feed` closes it, as CI runners and other agents do.
 */
function spawnGyre(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; feed?: (stdin: NodeJS.WritableStream) => void; devNull?: boolean },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [gyreBin, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.devNull ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.stdin?.on("error", () => {});
    const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(killer);
      child.stdin?.destroy();
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
    if (child.stdin) options.feed?.(child.stdin);
  });
}

async function fauxWorkspace() {
  const { cwd, home } = await createWorkspace();
  const script = join(home, "script.json");
  await writeFile(script, JSON.stringify([{ content: [{ type: "text", text: "the answer" }] }]));
  return { cwd, env: cliEnv(home), faux: ["--provider", "faux", "--faux-script", script, "--no-session"] };
}

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("stdin never hangs a caller", () => {
  it("gyre -p with a prompt argument and an open, silent stdin pipe goes on after a second and says so", async () => {
    const { cwd, env, faux } = await fauxWorkspace();
    const result = await spawnGyre(["-p", ...faux, "hi"], { cwd, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("the answer\n");
    expect(result.stderr).toMatch(/stdin sent nothing for 1 s, so it is ignored/);
    expect(result.stderr.split("\n").filter((line) => line.includes("stdin")).length).toBe(1);
    expect(result.ms).toBeGreaterThanOrEqual(900);
    expect(result.ms).toBeLessThan(3_500);
  }, 20_000);

  it("gyre <prompt> with stdin that is not a terminal runs print mode, never the full-screen UI", async () => {
    const { cwd, env, faux } = await fauxWorkspace();
    for (const devNull of [false, true]) {
      const result = await spawnGyre([...faux, "hi"], { cwd, env, devNull });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe("the answer\n");
      // The TUI would switch the screen and hide the cursor with escape codes.
      expect(result.stdout).not.toContain("\u001b[");
    }
  }, 20_000);

  it("with no prompt at all and no terminal, exits 2 with one sentence", async () => {
    const { cwd, env, faux } = await fauxWorkspace();
    const result = await spawnGyre(faux, { cwd, env, devNull: true });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^gyre: The full-screen UI needs stdin and stdout to be a terminal; pass a prompt/m);
  }, 20_000);

  it("stdin that starts arriving within the second is read to its end and joins the prompt argument", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: () => ({ text: "explained" }) });
    const env = cliEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
    const result = await spawnGyre(["-p", "--provider", "openai", "--no-session", "explain"], {
      cwd,
      env,
      feed: (stdin) => {
        stdin.write("first part\n");
        // The rest comes well after the one-second wait for the first byte.
        setTimeout(() => stdin.end("second part\n"), 1_800);
      },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("explained\n");
    expect(result.stderr).not.toMatch(/ignored/);
    const sent = JSON.stringify(server.requests[0]?.body.messages);
    expect(sent).toContain("explain");
    expect(sent).toContain("first part");
    expect(sent).toContain("second part");
  }, 20_000);

  it("without a prompt argument, a pipe that stays silent longer than a second is still read to its end", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: () => ({ text: "read it" }) });
    const env = cliEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
    const result = await spawnGyre(["-p", "--provider", "openai", "--no-session"], {
      cwd,
      env,
      feed: (stdin) => setTimeout(() => stdin.end("late prompt\n"), 1_600),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("read it\n");
    expect(result.stderr).toMatch(/waiting for the prompt on stdin/);
    expect(JSON.stringify(server.requests[0]?.body.messages)).toContain("late prompt");
  }, 20_000);
});

import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { cliEnv, createWorkspace, gyreBin } from "../helpers/run-cli.js";

/** Runs gyre under a shell so stdin is a real pipe fed by `feeder`; returns exit code, stderr and peak RSS (kB). */
function runPiped(feeder: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stderr: string; peakKb: number }>((resolve, reject) => {
    const script = `${feeder} | node -e 'process.on("exit",()=>process.stderr.write("PEAK "+process.resourceUsage().maxRSS+"\\n"));import(process.argv[1])' "$0" "$@"`;
    const child = spawn("/bin/sh", ["-c", script, gyreBin, ...args], { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr, peakKb: Number(/PEAK (\d+)/.exec(stderr)?.[1] ?? 0) }));
  });
}

/** Print mode in a fresh workspace, its prompt fed by `feeder`; the model is never reached. */
async function runGyreFed(feeder: string) {
  const { cwd, home } = await createWorkspace();
  const env = cliEnv(home, { OPENAI_API_KEY: "sk-t", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
  return runPiped(feeder, ["-p", "--provider", "openai", "--no-session"], cwd, env);
}

describe("a prompt piped on stdin", () => {
  it("is refused above 10 MiB with a sentence, reading 200 MB with bounded memory", async () => {
    const result = await runGyreFed("head -c 200000000 /dev/zero | tr '\\0' a");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/piped on stdin is 200000000 bytes, over the 10485760-byte limit/);
    expect(result.peakKb).toBeGreaterThan(0);
    expect(result.peakKb).toBeLessThan(300_000);
  }, 60_000);

  it("gets a hint after a second when the pipe is open but silent", async () => {
    const result = await runGyreFed("(sleep 2; echo hello)");
    expect(result.stderr).toMatch(/waiting for the prompt on stdin/);
  }, 30_000);
});

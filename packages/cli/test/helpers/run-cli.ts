import { spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The built CLI's bin (vitest's global setup bundles it before the tests). */
export const gyreBin = fileURLToPath(new URL("../../bin/gyre.js", import.meta.url));

export type CliResult = { code: number | null; stdout: string; stderr: string };

/** A fresh workspace and GYRE_HOME in the OS temp dir. */
export async function createWorkspace(): Promise<{ cwd: string; home: string }> {
  const root = await mkdtemp(join(tmpdir(), "gyre-cli-"));
  const cwd = join(root, "project");
  const home = join(root, "home");
  await import("node:fs/promises").then((fs) => Promise.all([fs.mkdir(cwd), fs.mkdir(home)]));
  return { cwd, home };
}

/** Environment for the CLI: no real keys or home, only what the test passes. */
export function cliEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", GYRE_HOME: home, HOME: home, ...extra };
}

/** Runs the built CLI to completion. `input` is written to stdin, which is then closed. */
export function runCli(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [gyreBin, ...args], { cwd: options.cwd, env: options.env });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

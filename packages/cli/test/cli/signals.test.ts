import { execFileSync, spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function survivors(marker: string): string[] {
  try {
    return execFileSync("pgrep", ["-f", marker], { encoding: "utf8" }).trim().split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

describe("signals", () => {
  it.each([
    ["SIGTERM", 143],
    ["SIGHUP", 129],
    ["SIGINT", 130],
  ] as const)(
    "%s mid-tool aborts the run, kills the tool's process group and keeps the session, with no false alarm",
    async (signal, exitCode) => {
      const { cwd, home } = await createWorkspace();
      const marker = `${300 + Math.floor(Math.random() * 1000) / 1000}`;
      server = await startFakeModelServer({
        respond: () => ({ toolCalls: [{ name: "bash", arguments: { command: `sleep ${marker} & sleep ${marker}` } }] }),
      });
      const child = spawn(process.execPath, [gyreBin, "--mode", "json", "-p", "--provider", "openai", "run it"], {
        cwd,
        env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` }),
      });
      child.stdin.end();
      let stdout = "";
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
      });
      const toolStarted = new Promise<void>((resolve) => {
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          stdout += chunk;
          if (stdout.includes('"tool_execution_start"')) resolve();
        });
      });
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      await toolStarted;
      const deadline = Date.now() + 5000;
      while (survivors(`sleep ${marker}`).length === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(survivors(`sleep ${marker}`).length).toBeGreaterThan(0);
      child.kill(signal);
      expect(await exited).toBe(exitCode);
      expect(stderr).toContain(signal);
      expect(stderr).not.toMatch(/deleted or replaced|file closed|could not write/);
      const gone = Date.now() + 5000;
      while (survivors(`sleep ${marker}`).length > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 20));
      expect(survivors(`sleep ${marker}`)).toEqual([]);
      const dir = join(home, "sessions");
      const [folder] = await readdir(dir);
      const [file] = await readdir(join(dir, folder!));
      const lines = (await readFile(join(dir, folder!, file!), "utf8")).trim().split("\n");
      // After the header, the session records the model in use, then the messages.
      const roles = lines
        .slice(1)
        .flatMap((line) => (JSON.parse(line) as { message?: { role: string } }).message?.role ?? []);
      expect(roles.slice(0, 2)).toEqual(["user", "assistant"]);
      // The run's end checkpoint (docs/design/rewind.md) may follow the result.
      expect(lines.filter((line) => !line.startsWith('{"type":"checkpoint"')).at(-1)).toContain('"toolResult"');
    },
  );
});

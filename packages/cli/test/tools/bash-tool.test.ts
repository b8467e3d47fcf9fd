import { execFile } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import { promisify } from "node:util";
import type { AgentToolResult } from "@gyre/agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBashTool } from "../../src/core/tools/bash-tool.js";
import { createTempDir, textOf, toolContext } from "./helpers.js";

const run = promisify(execFile);

/** Live (non-zombie) processes of group `pgid`, as `ps` sees them. */
async function liveMembers(pgid: number): Promise<string[]> {
  const { stdout } = await run("ps", ["-eo", "pid=,pgid=,stat=,args="]);
  return stdout
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => Number(fields[1]) === pgid && !fields[2]?.startsWith("Z"))
    .map((fields) => fields.join(" "));
}

/** The error a promise rejects with (fails the test if it resolves). */
async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}

describe("bash tool", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await createTempDir());
  });
  afterEach(() => cleanup());
  const bash = (options: Partial<Parameters<typeof createBashTool>[0]> = {}) =>
    createBashTool({ cwd: dir, tempDir: dir, ...options });

  it("runs in the workspace root with stdout and stderr merged", async () => {
    const result = await bash().execute({ command: "pwd; echo out; echo err >&2" }, toolContext());
    expect(textOf(result)).toBe(`${dir}\nout\nerr`);
    expect(result.details).toMatchObject({ exitCode: 0, truncated: false, timedOut: false, aborted: false });
  });

  it("throws on a non-zero exit with the output and the code", async () => {
    const error = await rejectionOf(bash().execute({ command: "echo partial; exit 3" }, toolContext()));
    expect(error.message).toBe("partial\n\nCommand exited with code 3.");
  });

  it("passes only allowlisted variables to the command, never secrets", async () => {
    const env = {
      PATH: process.env.PATH,
      OPENAI_API_KEY: "sk-1",
      GITHUB_TOKEN: "t",
      DATABASE_URL: "p",
      UNLISTED: "x",
      LANG: "ok",
    };
    const result = await bash({ env }).execute(
      { command: 'echo "[$OPENAI_API_KEY|$GITHUB_TOKEN|$DATABASE_URL|$UNLISTED|$LANG]"' },
      toolContext(),
    );
    expect(textOf(result)).toBe("[||||ok]");
  });

  it("streams output to onUpdate while the command runs", async () => {
    const updates: AgentToolResult[] = [];
    const controller = new AbortController();
    const tool = bash({ updateIntervalMs: 10 });
    const pending = tool.execute(
      { command: "echo ready; sleep 300" },
      toolContext(controller.signal, (partial) => {
        updates.push(partial);
        controller.abort();
      }),
    );
    const error = await rejectionOf(pending);
    expect(textOf(updates[0] as AgentToolResult)).toBe("ready");
    expect(error.message).toMatch(
      /^ready\n\nCommand aborted by the user; its process group was terminated \(SIGTERM\)\.$/,
    );
  });

  it("kills the whole process group on timeout, background children included", async () => {
    const error = await rejectionOf(
      bash().execute({ command: "echo $$; sleep 300 & sleep 300", timeout: 0.3 }, toolContext()),
    );
    expect(error.message).toMatch(/Command timed out after 0\.3 s; its process group was terminated \(SIGTERM\)/);
    const pgid = Number(error.message.split("\n")[0]);
    expect(pgid).toBeGreaterThan(0);
    expect(await liveMembers(pgid)).toEqual([]);
  });

  it("kills the group with SIGKILL when it ignores SIGTERM", async () => {
    const updates: string[] = [];
    const controller = new AbortController();
    const tool = bash({ killGraceMs: 200, updateIntervalMs: 10 });
    const command = "trap '' TERM; echo $$; (trap '' TERM; sleep 300) & sleep 300";
    const error = await rejectionOf(
      tool.execute(
        { command },
        toolContext(controller.signal, (partial) => {
          updates.push(textOf(partial));
          controller.abort();
        }),
      ),
    );
    expect(error.message).toMatch(/aborted by the user; its process group was terminated \(SIGKILL\)/);
    expect(await liveMembers(Number(updates[0]))).toEqual([]);
  });

  it("returns when the shell exits even if a background child keeps the pipe open", async () => {
    const started = performance.now();
    const result = await bash().execute({ command: "sleep 300 & echo $!" }, toolContext());
    const child = Number(textOf(result));
    try {
      expect(performance.now() - started).toBeLessThan(5000);
      expect(() => process.kill(child, 0)).not.toThrow();
    } finally {
      process.kill(child, "SIGKILL");
    }
  });

  it("keeps the tail of long output and saves the full output to a private file", async () => {
    const result = await bash().execute({ command: "seq 1 10000" }, toolContext());
    const text = textOf(result);
    expect(text.split("\n").slice(0, 2)).toEqual(["8001", "8002"]);
    const path = result.details?.fullOutputPath as string;
    expect(text).toContain(
      `[showing the last 2000 of 10000 lines; full output (48 KB) saved to ${path}; read or grep it for more]`,
    );
    expect(await readFile(path, "utf8")).toBe(`${Array.from({ length: 10000 }, (_, index) => index + 1).join("\n")}\n`);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it("bounds memory on 300 MB of output", async () => {
    const before = process.memoryUsage().rss;
    const result = await bash().execute({ command: "yes | head -c 300000000" }, toolContext());
    const growth = process.memoryUsage().rss - before;
    console.log(`bash 300 MB output: RSS +${(growth / 1048576).toFixed(1)} MB`);
    // Keeping the output would cost ≥ 300 MB. Below that, RSS growth is mostly V8's young
    // generation, which Node 24 lets grow to 2 × 32 MB on its own (measured +30 to +65 MB there).
    expect(growth).toBeLessThan(120 * 1024 * 1024);
    expect(textOf(result).split("\n")[0]).toBe("y");
    expect(textOf(result)).toMatch(/\[showing the last 2000 lines; full output \(286\.1 MB\) saved to/);
    expect((await stat(result.details?.fullOutputPath as string)).size).toBe(300_000_000);
  }, 60_000);

  it("explains a shell that cannot start", async () => {
    await expect(bash({ cwd: `${dir}/missing` }).execute({ command: "true" }, toolContext())).rejects.toThrow(
      /Could not start bash/,
    );
  });
});

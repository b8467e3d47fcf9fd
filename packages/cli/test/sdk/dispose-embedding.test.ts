import { spawn } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { createWorkspace } from "../helpers/run-cli.js";

const require = createRequire(import.meta.url);
const memoryServer = require.resolve("@modelcontextprotocol/server-memory/dist/index.js");
const program = fileURLToPath(new URL("./fixtures/embed-and-dispose.mjs", import.meta.url));

type Line = Record<string, unknown> & { step: string };

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The process with this pid, as `state command line` when it still runs (a zombie counts as gone). */
async function running(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  if (stat === undefined) return undefined;
  const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  if (state === "Z") return undefined;
  const command = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  return `${state} ${command.replace(/\0/g, " ").trim()}`;
}

/** Sandbox cgroups named after `pid` still present where gyre creates them. */
async function cgroupsOf(pid: number): Promise<string[]> {
  const own = await readFile("/proc/self/cgroup", "utf8").catch(() => "");
  const unified =
    own
      .split("\n")
      .find((line) => line.startsWith("0::"))
      ?.slice(3) ?? "/";
  const parents = ["/sys/fs/cgroup/pids", join("/sys/fs/cgroup", unified), join("/sys/fs/cgroup/unified", unified)];
  const left: string[] = [];
  for (const parent of parents) {
    const names = await readdir(parent).catch(() => [] as string[]);
    left.push(...names.filter((name) => name.startsWith(`gyre-sandbox-${pid}-`)).map((name) => join(parent, name)));
  }
  return left;
}

/** Runs the embedding program to its own end (nobody kills it); its lines, pid and when it exited. */
function runProgram(cwd: string, home: string, url: string) {
  return new Promise<{ lines: Line[]; pid: number; code: number | null; exitedAt: number; stderr: string }>(
    (resolve, reject) => {
      const child = spawn(process.execPath, [program, cwd, home, `${url}/v1`], {
        cwd,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
      });
      const guard = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`the embedding program did not exit by itself; stdout: ${stdout}; stderr: ${stderr}`));
      }, 60_000);
      child.on("error", reject);
      child.on("exit", (code) => {
        clearTimeout(guard);
        const lines = stdout
          .split("\n")
          .filter((line) => line.trim())
          .map((line) => JSON.parse(line) as Line);
        resolve({ lines, pid: child.pid ?? -1, code, exitedAt: Date.now(), stderr });
      });
    },
  );
}

describe("dispose() of an embedded session", () => {
  it("closes the MCP server, the bash sandbox and its cgroup: the program exits by itself, twice in a row", async () => {
    server = await startFakeModelServer({
      // A bash call first; once its result is in, the answer.
      respond: ({ body }) => {
        const last = body.messages?.at(-1);
        if (last?.role === "tool") return { text: "done" };
        const label = JSON.stringify(last?.content ?? "").match(/for ([a-z ]+)/)?.[1] ?? "x";
        return { toolCalls: [{ name: "bash", arguments: { command: `echo ran-${label.replace(/ /g, "-")}` } }] };
      },
    });
    const { cwd, home } = await createWorkspace();
    await writeFile(
      join(home, "mcp.json"),
      JSON.stringify({ mcpServers: { memory: { command: process.execPath, args: [memoryServer] } } }),
    );
    for (let run = 0; run < 2; run++) {
      const result = await runProgram(cwd, home, server.url);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const step = (name: string) => result.lines.find((line) => line.step === name) ?? {};
      const one = step("one-ran") as { reason: string; bash: string; running: number[] };
      expect(one.reason).toBe("stop");
      expect(one.bash).toContain("ran-one");
      // The MCP server's node and the sandbox supervisor (bwrap …) ran under the program.
      expect(one.running.length).toBeGreaterThanOrEqual(2);
      expect(step("one-disposed")).toMatchObject({ left: [], resources: [] });
      const two = step("two-ran") as {
        first: { bash: string };
        second: { bash: string };
        secondAgain: string;
        both: number[];
        afterFirst: number[];
      };
      expect(two.first.bash).toContain("ran-first");
      expect(two.second.bash).toContain("ran-second");
      // Two sessions, two servers and two sandboxes: disposing one leaves the other's running and working.
      expect(two.both.length).toBeGreaterThanOrEqual(2 * one.running.length);
      expect(two.afterFirst.length).toBeGreaterThan(0);
      expect(two.afterFirst.length).toBeLessThan(two.both.length);
      expect(two.secondAgain).toBe("stop");
      const end = step("two-disposed") as { left: number[]; resources: string[]; at: number };
      expect(end.left).toEqual([]);
      // Nothing keeps the event loop alive beyond what it had before the first session (its stdio).
      expect(end.resources).toEqual([]);
      expect(result.exitedAt - end.at).toBeLessThan(1000);
      for (const pid of [...one.running, ...two.both]) expect(await running(pid), `pid ${pid}`).toBeUndefined();
      expect(await cgroupsOf(result.pid)).toEqual([]);
    }
  }, 120_000);
});

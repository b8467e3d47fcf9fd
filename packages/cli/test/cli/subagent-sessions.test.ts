import { spawn } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../../src/core/session/session-manager.js";
import { listSessions } from "../../src/core/session/session-store.js";
import { toSessionItems } from "../../src/modes/interactive/pickers/session-picker.js";
import { toTreeItems } from "../../src/modes/interactive/pickers/tree-picker.js";
import { cliEnv, createWorkspace, gyreBin, runCli } from "../helpers/run-cli.js";

type Block = { type: "text"; text: string } | { type: "toolCall"; name: string; arguments: Record<string, unknown> };
const text = (value: string, extra: Record<string, unknown> = {}) => ({
  content: [{ type: "text", text: value }] as Block[],
  ...extra,
});
const call = (name: string, args: Record<string, unknown>) => ({
  content: [{ type: "toolCall", name, arguments: args }] as Block[],
});

/** The parent delegates one read to a subagent, which finishes; the parent's answer then streams for a minute. */
const delegation = [
  call("task", { description: "read the notes", prompt: "Read notes.md.", agent: "explore" }),
  call("read", { path: "notes.md" }),
  text("notes.md says alpha"),
  text("the parent's slow answer ".repeat(50), { tokenDelayMs: 1_000 }),
];

/** JSON mode on the faux model with the read and task tools. */
const headless = (script: string) =>
  "--mode json -p --provider faux --tools read,task --faux-script".split(" ").concat(script);

async function sessionFiles(home: string): Promise<string[]> {
  const root = join(home, "sessions");
  const files: string[] = [];
  for (const folder of await readdir(root)) {
    for (const name of await readdir(join(root, folder)))
      if (name.endsWith(".jsonl")) files.push(join(root, folder, name));
  }
  return files;
}

const lines = async (path: string) => (await readFile(path, "utf8")).trim().split("\n");

/** Polls until `check` holds; the child's writes are what we wait for, not a clock. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("subagent sessions", () => {
  it("are linked from the parent in /tree and the session picker, and a crashed parent resumes without re-running one", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(cwd, "notes.md"), "alpha\n");
    const script = join(home, "script.json");
    await writeFile(script, JSON.stringify(delegation));
    const child = spawn(process.execPath, [gyreBin, ...headless(script), "go"], {
      cwd,
      env: cliEnv(home),
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    // The task's result is on disk in the parent's file: the crash comes after the subagent finished.
    let parentFile = "";
    await until(async () => {
      for (const file of await sessionFiles(home)) {
        if ((await readFile(file, "utf8")).includes('"toolName":"task"')) parentFile = file;
      }
      return parentFile !== "";
    }, "the task result in the parent's session file");
    child.kill("SIGKILL");
    await exited;
    const [childFile] = (await sessionFiles(home)).filter((file) => file !== parentFile);
    expect(childFile).toBeDefined();
    const childLines = await lines(childFile as string);

    const sessions = await listSessions({ sessionsDir: join(home, "sessions"), cwd });
    expect(toSessionItems(sessions).map((item) => item.label)).toEqual([
      "go",
      `↳ explore for ${taskCallId(childLines)}`,
    ]);
    const store = await SessionManager.open(parentFile);
    const labels = toTreeItems(store.getTree(), new Set()).map((item) => item.label);
    expect(labels).toContainEqual(
      expect.stringContaining(`↳ subagent explore (read the notes, ended: stop) → ${childFile}`),
    );
    await store.close();

    await writeFile(script, JSON.stringify([text("resumed: the notes say alpha")]));
    const resumed = await runCli([...headless(script), "--session", parentFile, "go on"], { cwd, env: cliEnv(home) });
    expect(resumed.stderr).toBe("");
    const result = JSON.parse(resumed.stdout.trim().split("\n").at(-1) ?? "{}");
    // One model call, no subagent: the finished task's answer came from the file.
    expect(result).toMatchObject({ reason: "stop", turns: 1, text: "resumed: the notes say alpha" });
    expect(result.agents).toBeUndefined();
    expect(await sessionFiles(home)).toHaveLength(2);
    expect(await lines(childFile as string)).toEqual(childLines);
  });
});

function taskCallId(childLines: string[]): string {
  const info = childLines.map((line) => JSON.parse(line)).find((entry) => entry.type === "session_info");
  return String(info?.name ?? "").replace(/^explore for /, "");
}

/**
 * Diagnostics after write and edit from real language servers (typescript-language-server with
 * the repository's typescript, pyright), driven through a session whose scripted model calls the
 * tools; and servers that hang, crash or cannot start.
 */
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { AgentToolResult } from "@gyre/agent";
import { createFauxModel, type FauxResponse } from "@gyre/ai/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LspServerSettings } from "../../src/core/lsp/types.js";
import { type CreatedAgentSession, createAgentSession } from "../../src/index.js";
import { makeTempDirs, type TempDirs } from "../sdk/temp-dirs.js";

const require = createRequire(import.meta.url);
const tsServerCli = require.resolve("typescript-language-server/lib/cli.mjs");
const tsserverPath = require.resolve("typescript/lib/tsserver.js");
const pyrightCli = join(require.resolve("pyright/package.json"), "..", "langserver.index.js");

const typescript = (command?: { command: string; args: string[] }): LspServerSettings => ({
  command: command?.command ?? process.execPath,
  args: command?.args ?? [tsServerCli, "--stdio"],
  extensions: [".ts", ".tsx"],
  rootMarkers: ["tsconfig.json", "package.json"],
  initializationOptions: { tsserver: { path: tsserverPath } },
  timeoutMs: 30_000,
});

const call = (name: string, args: Record<string, unknown>): FauxResponse => ({
  content: [{ type: "toolCall", name, arguments: args }],
});
const edit = (path: string, oldText: string, newText: string) => call("edit", { path, edits: [{ oldText, newText }] });
const done: FauxResponse = { content: [{ type: "text", text: "done" }] };

let dirs: TempDirs;
let open: CreatedAgentSession | undefined;
beforeEach(async () => {
  dirs = await makeTempDirs();
  await writeFile(join(dirs.cwd, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }));
});
afterEach(async () => {
  await open?.dispose();
  open = undefined;
  await dirs.remove();
});

/** A session on a scripted model; `prompt` runs one user prompt and returns each tool result's text. */
async function startSession(lsp: Record<string, LspServerSettings>, script: FauxResponse[]) {
  const faux = createFauxModel(script);
  const created = await createAgentSession({
    cwd: dirs.cwd,
    gyreHome: dirs.home,
    model: faux.model,
    settings: { lsp },
  });
  open = created;
  const texts: string[] = [];
  created.session.subscribe((event) => {
    if (event.type === "tool_execution_end") texts.push(resultText(event.result));
  });
  return {
    created,
    async prompt(): Promise<string[]> {
      const from = texts.length;
      await created.session.prompt("Make the edits.");
      return texts.slice(from);
    },
  };
}

function resultText(result: AgentToolResult<unknown>): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** Waits until process `pid` is gone (it was sent SIGKILL, or its session closed it). */
async function waitForExit(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`process ${pid} is still running`);
}

describe("diagnostics after write and edit", () => {
  it("reports a type error an edit introduces, then reports it fixed, and never repeats an older one", async () => {
    await writeFile(join(dirs.cwd, "main.ts"), 'const old: number = "x";\nexport const label: string = "ok";\n');
    const { prompt } = await startSession({ typescript: typescript() }, [
      edit("main.ts", 'label: string = "ok"', "label: string = 42"),
      edit("main.ts", "label: string = 42", 'label: string = "fine"'),
      call("write", { path: "extra.ts", content: "export const n: number = 1;\n" }),
      call("diagnostics", { path: "main.ts" }),
      done,
    ]);
    const [introduced, fixed, written, listed] = await prompt();
    expect(introduced).toContain("Applied 1 edit to main.ts.");
    expect(introduced).toContain(
      "Diagnostics introduced by this edit:\nmain.ts:2:14 error Type 'number' is not assignable to type 'string'. (2322)",
    );
    expect(introduced).not.toContain("main.ts:1:");
    expect(introduced).toContain("1 earlier diagnostic of this file remains (not repeated; diagnostics lists them).");
    expect(fixed).toContain(
      "Diagnostics introduced by this edit:\nNo new diagnostics.\n1 fixed (gone since the edit):",
    );
    expect(fixed).toContain("main.ts:2:14 error Type 'number' is not assignable to type 'string'. (2322)");
    expect(written).toContain("Created extra.ts");
    expect(written).toContain("Diagnostics introduced by this edit:\nNo new diagnostics.");
    expect(listed).toBe(
      "main.ts: 1 diagnostic:\nmain.ts:1:7 error Type 'string' is not assignable to type 'number'. (2322)",
    );
  });

  it("reports a server that never answers as not answering, not as a clean file", async () => {
    await writeFile(join(dirs.cwd, "main.ts"), "export const a = 1;\n");
    const silent = { command: process.execPath, args: ["-e", "process.stdin.resume()"] };
    const { prompt } = await startSession({ typescript: { ...typescript(silent), timeoutMs: 400 } }, [
      edit("main.ts", "a = 1", "a = 2"),
      done,
    ]);
    const [text] = await prompt();
    expect(text).toContain("Applied 1 edit to main.ts.");
    expect(text).toContain("Diagnostics introduced by this edit:\nThe language server did not answer within 400 ms.");
    expect(text).not.toContain("No new diagnostics");
    expect(await readFile(join(dirs.cwd, "main.ts"), "utf8")).toBe("export const a = 2;\n");
  });

  it("names the command and the setting when a server cannot start", async () => {
    await writeFile(join(dirs.cwd, "main.ts"), "export const a = 1;\n");
    const missing = { command: "gyre-no-such-language-server", args: [] };
    const { prompt } = await startSession({ typescript: typescript(missing) }, [
      edit("main.ts", "a = 1", "a = 2"),
      done,
    ]);
    const [text] = await prompt();
    expect(text).toContain("Applied 1 edit to main.ts.");
    expect(text).toMatch(
      /The typescript language server \(command "gyre-no-such-language-server" from the lsp setting "typescript"\) cannot be started \(spawn gyre-no-such-language-server ENOENT\)\. Fix the command or remove lsp\.typescript from settings\.json\./,
    );
  });

  it("restarts a server killed mid-session and says so, and stops it when the session is disposed", async () => {
    await writeFile(join(dirs.cwd, "main.ts"), "export const a: number = 1;\n");
    const pidFile = join(dirs.cwd, "server.pid");
    const wrapper = {
      command: "sh",
      args: ["-c", `echo $$ > ${pidFile}; exec "${process.execPath}" "${tsServerCli}" --stdio`],
    };
    const { created, prompt } = await startSession({ typescript: typescript(wrapper) }, [
      edit("main.ts", "a: number = 1", "a: number = 2"),
      done,
      edit("main.ts", "a: number = 2", 'a: number = "three"'),
      done,
    ]);
    const [first] = await prompt();
    expect(first).toContain("No new diagnostics.");
    const firstPid = Number(await readFile(pidFile, "utf8"));
    process.kill(firstPid, "SIGKILL");
    await waitForExit(firstPid);
    const [second] = await prompt();
    expect(second).toMatch(/The typescript language server had stopped \(was killed by SIGKILL\); gyre restarted it\./);
    expect(second).toContain("main.ts:1:14 error Type 'string' is not assignable to type 'number'. (2322)");
    const secondPid = Number(await readFile(pidFile, "utf8"));
    expect(secondPid).not.toBe(firstPid);
    await created.dispose();
    open = undefined;
    await waitForExit(secondPid);
  });

  it("reports a Python type error from pyright", async () => {
    await writeFile(join(dirs.cwd, "app.py"), "def double(value: int) -> int:\n    return value * 2\n");
    const pyright: LspServerSettings = {
      command: process.execPath,
      args: [pyrightCli, "--stdio"],
      extensions: [".py"],
      rootMarkers: ["pyproject.toml"],
      timeoutMs: 30_000,
    };
    const { prompt } = await startSession({ pyright }, [
      edit("app.py", "    return value * 2\n", '    return value * 2\n\n\ncount: int = double("two")\n'),
      done,
    ]);
    const [text] = await prompt();
    expect(text).toContain("Diagnostics introduced by this edit:\napp.py:5:21 error");
    expect(text).toMatch(/"Literal\['two'\]" is not assignable to "int"/);
  });
});

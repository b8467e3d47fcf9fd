/**
 * Diagnostics after write and edit from real language servers (typescript-language-server with
 * the repository's typescript, pyright), driven through a session whose scripted model calls the
 * tools; servers that hang, crash or cannot start; and the read-only sandbox they run in (the
 * session's default, workspace-write, with bubblewrap installed as CONTRIBUTING.md asks).
 */
import { access, readdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { AgentToolResult } from "@gyre/agent";
import { createFauxModel, type FauxResponse } from "@gyre/ai/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Settings } from "../../src/core/config/settings.js";
import type { LspServerSettings } from "../../src/core/lsp/types.js";
import { type CreatedAgentSession, createAgentSession } from "../../src/index.js";
import { makeTempDirs, type TempDirs } from "../sdk/temp-dirs.js";

const require = createRequire(import.meta.url);
const tsServerCli = require.resolve("typescript-language-server/lib/cli.mjs");
const tsserverPath = require.resolve("typescript/lib/tsserver.js");
const pyrightCli = join(require.resolve("pyright/package.json"), "..", "langserver.index.js");
const hangingServer = join(import.meta.dirname, "fixtures", "hanging-server.mjs");
/**
 * A test with real servers: each wait may take the servers' 30 s `timeoutMs` on two loaded cores,
 * and a test waits several times (the restart test starts TypeScript twice), so the test's own
 * limit is well above them and a slow server fails with gyre's sentence, not with vitest's limit.
 */
const REAL_SERVER_TEST_MS = 150_000;

const typescript = (command?: { command: string; args: string[] }): LspServerSettings => ({
  command: command?.command ?? process.execPath,
  args: command?.args ?? [tsServerCli, "--stdio"],
  extensions: [".ts", ".tsx"],
  rootMarkers: ["tsconfig.json", "package.json"],
  // One tsserver, not a syntax server beside the semantic one, and no typings installer: each
  // would load TypeScript again, for nothing these edits need.
  initializationOptions: {
    tsserver: { path: tsserverPath, useSyntaxServer: "never" },
    disableAutomaticTypingAcquisition: true,
  },
  timeoutMs: 30_000,
});

const call = (name: string, args: Record<string, unknown>): FauxResponse => ({
  content: [{ type: "toolCall", name, arguments: args }],
});
const edit = (path: string, oldText: string, newText: string) => call("edit", { path, edits: [{ oldText, newText }] });
const done: FauxResponse = { content: [{ type: "text", text: "done" }] };

/**
 * The workspace's compiler options: ES2022's library alone, no DOM and no @types. The edits need
 * nothing more; TypeScript's default library (with the DOM's declarations) cost each server start
 * about 0.4 s of CPU more.
 */
const LEAN_TSCONFIG = {
  compilerOptions: { strict: true, noEmit: true, target: "es2022", lib: ["es2022"], types: [], skipLibCheck: true },
};

let dirs: TempDirs;
let open: CreatedAgentSession | undefined;
beforeEach(async () => {
  dirs = await makeTempDirs();
  await writeFile(join(dirs.cwd, "tsconfig.json"), JSON.stringify(LEAN_TSCONFIG));
});
afterEach(async () => {
  await open?.dispose();
  open = undefined;
  await dirs.remove();
});

/** A session on a scripted model; `prompt` runs one user prompt and returns each tool result's text. */
async function startSession(
  lsp: Record<string, LspServerSettings>,
  script: FauxResponse[],
  options: { settings?: Settings; env?: NodeJS.ProcessEnv } = {},
) {
  const faux = createFauxModel(script);
  const created = await createAgentSession({
    cwd: dirs.cwd,
    gyreHome: dirs.home,
    model: faux.model,
    settings: { ...options.settings, lsp },
    ...(options.env ? { env: options.env } : {}),
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

/**
 * The processes under this test process whose command line starts with `argv` (bwrap's own
 * command line holds it further on), found in /proc: a server in the sandbox has another pid inside
 * its namespace, so it cannot tell its own.
 */
async function descendantsRunning(argv: readonly string[]): Promise<number[]> {
  const prefix = argv.join("\0");
  const parents = new Map<number, number>();
  const commandLines = new Map<number, string>();
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, "utf8");
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      commandLines.set(Number(name), await readFile(`/proc/${name}/cmdline`, "utf8"));
    } catch {
      // Gone while listing.
    }
  }
  const isOurs = (pid: number) => {
    for (let at = parents.get(pid); at !== undefined && at > 1; at = parents.get(at))
      if (at === process.pid) return true;
    return false;
  };
  return [...commandLines].filter(([pid, line]) => line.startsWith(prefix) && isOurs(pid)).map(([pid]) => pid);
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

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
  it(
    "reports a type error an edit introduces, then reports it fixed, and never repeats an older one",
    async () => {
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
    },
    REAL_SERVER_TEST_MS,
  );

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

  it.each([
    ["publishes nothing", "push"],
    ["leaves LSP's diagnostic request unanswered", "pull"],
  ])("reports a server that starts and then %s as not answering, not as a clean file", async (_, mode) => {
    await writeFile(join(dirs.cwd, "main.ts"), "export const a = 1;\n");
    const hanging = { command: process.execPath, args: [hangingServer, mode] };
    const { prompt } = await startSession({ typescript: { ...typescript(hanging), timeoutMs: 800 } }, [
      edit("main.ts", "a = 1", "a = 2"),
      call("diagnostics", { path: "main.ts" }),
      done,
    ]);
    const [edited, listed] = await prompt();
    expect(edited).toContain("Applied 1 edit to main.ts.");
    expect(edited).toContain(
      "Diagnostics introduced by this edit:\nThe language server did not answer within 800 ms. " +
        "This says nothing about the file (it may have errors); call diagnostics later to check.",
    );
    expect(edited).not.toMatch(/No new diagnostics|stopped|cannot be started/);
    expect(listed).toBe(
      "main.ts: The language server did not answer within 800 ms. " +
        "This says nothing about the file (it may have errors); call diagnostics later to check.",
    );
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
    expect(text).toContain(
      'The typescript language server (command "gyre-no-such-language-server" from the lsp setting "typescript") cannot be started (gyre-no-such-language-server is not an executable file on PATH). Fix the command or remove lsp.typescript from settings.json.',
    );
  });

  it(
    "restarts a server killed mid-session and says so, and stops it when the session is disposed",
    async () => {
      await writeFile(join(dirs.cwd, "main.ts"), "export const a: number = 1;\n");
      const { created, prompt } = await startSession({ typescript: typescript() }, [
        edit("main.ts", "a: number = 1", "a: number = 2"),
        done,
        edit("main.ts", "a: number = 2", 'a: number = "three"'),
        done,
      ]);
      const [first] = await prompt();
      expect(first).toContain("No new diagnostics.");
      const [firstPid, ...others] = await descendantsRunning([process.execPath, tsServerCli]);
      expect(firstPid).toBeDefined();
      expect(others).toEqual([]);
      process.kill(firstPid as number, "SIGKILL");
      await waitForExit(firstPid as number);
      const [second] = await prompt();
      expect(second).toMatch(
        /The typescript language server had stopped \(was killed by SIGKILL\); gyre restarted it\./,
      );
      expect(second).toContain("main.ts:1:14 error Type 'string' is not assignable to type 'number'. (2322)");
      const [secondPid] = await descendantsRunning([process.execPath, tsServerCli]);
      expect(secondPid).toBeDefined();
      expect(secondPid).not.toBe(firstPid);
      await created.dispose();
      open = undefined;
      await waitForExit(secondPid as number);
    },
    REAL_SERVER_TEST_MS,
  );

  it(
    "reports a Python type error from pyright",
    async () => {
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
    },
    REAL_SERVER_TEST_MS,
  );
});

describe("the language servers' sandbox", () => {
  /** typescript-language-server started by a shell that first runs `before`. */
  // The server's paths are arguments of their own, as a setting would give them, so a checkout
  // under /tmp stays in view behind the sandbox's private /tmp (core/sandbox/private-tmp-binds.ts).
  const startingAfter = (before: string) =>
    typescript({
      command: "sh",
      args: ["-c", `${before}; exec "$0" "$1" --stdio`, process.execPath, tsServerCli],
    });
  const introduceError = edit("main.ts", "a: number = 1", 'a: number = "one"');
  const introduced =
    "Diagnostics introduced by this edit:\nmain.ts:1:14 error Type 'string' is not assignable to type 'number'. (2322)";

  it(
    "runs a server read-only to the workspace, with a writable temporary folder, and its diagnostics still arrive",
    async () => {
      await writeFile(join(dirs.cwd, "main.ts"), "export const a: number = 1;\n");
      // The server exits with 3 if it could write into the workspace, with 4 if not into its TMPDIR.
      const server = startingAfter('if echo x > probe.txt; then exit 3; fi; echo x > "$TMPDIR/probe.txt" || exit 4');
      const { prompt } = await startSession({ typescript: server }, [introduceError, done]);
      const [text] = await prompt();
      expect(text).toContain(introduced);
      expect(await exists(join(dirs.cwd, "probe.txt"))).toBe(false);
      expect(await readFile(join(dirs.cwd, "main.ts"), "utf8")).toBe('export const a: number = "one";\n');
    },
    REAL_SERVER_TEST_MS,
  );

  it(
    "runs a server unconfined when the sandbox is off",
    async () => {
      await writeFile(join(dirs.cwd, "main.ts"), "export const a: number = 1;\n");
      const { prompt } = await startSession(
        { typescript: startingAfter("echo x > probe.txt") },
        [introduceError, done],
        { settings: { sandbox: { mode: "off" } } },
      );
      const [text] = await prompt();
      expect(text).toContain(introduced);
      expect(await readFile(join(dirs.cwd, "probe.txt"), "utf8")).toBe("x\n");
    },
    REAL_SERVER_TEST_MS,
  );

  it("starts no server, and says why, when the sandbox is on but cannot run", async () => {
    await writeFile(join(dirs.cwd, "main.ts"), "export const a: number = 1;\n");
    // No bubblewrap on this PATH: the sandbox is unavailable, as on a machine without it.
    const env = { ...process.env, PATH: dirs.home };
    const { prompt } = await startSession({ typescript: typescript() }, [introduceError, done], { env });
    const [text] = await prompt();
    expect(text).toContain("Applied 1 edit to main.ts.");
    expect(text).toContain(
      'Diagnostics introduced by this edit:\nThe typescript language server (lsp setting "typescript") was not started: ' +
        "the workspace-write sandbox is unavailable because bubblewrap (bwrap) is not installed or not on PATH; to fix it, install it",
    );
    expect(await descendantsRunning([process.execPath, tsServerCli])).toEqual([]);
  });
});

import { readdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createWorkspace, gyreBin } from "../helpers/run-cli.js";
import { startTmux, type TmuxSession } from "../interactive/tmux-session.js";

const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
const trouble = fileURLToPath(new URL("./fixtures/trouble-server.mjs", import.meta.url));
let sessions: TmuxSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.map((session) => session.kill()));
  sessions = [];
});

/** The built gyre in tmux on the faux model, with only `home` as its home. */
async function startGyre(options: {
  cwd: string;
  home: string;
  script: string;
  height?: number;
  /** More arguments, already quoted for the shell. */
  args?: string;
}): Promise<TmuxSession> {
  const { cwd, home, script } = options;
  const env = `env -i PATH="${process.env.PATH}" HOME="${home}" GYRE_HOME="${home}" TERM=xterm-256color`;
  const tmux = await startTmux({
    command: `${env} node ${gyreBin} --provider faux --faux-script ${script} ${options.args ?? ""}`,
    cwd,
    width: 160,
    ...(options.height ? { height: options.height } : {}),
  });
  sessions.push(tmux);
  return tmux;
}

/** The session journal under `sessions` once it holds `expected` (or as it is after 10 s). */
async function readJournal(sessions: string, expected: string): Promise<string> {
  let text = "";
  for (let tries = 0; tries < 100 && !text.includes(expected); tries++) {
    if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    const journal = (await readdir(sessions, { recursive: true }).catch(() => [] as string[])).find((file) =>
      file.endsWith(".jsonl"),
    );
    text = journal ? await readFile(join(sessions, journal), "utf8").catch(() => "") : "";
  }
  return text;
}

describe("MCP in the TUI", () => {
  it("names the project's MCP servers and their commands in the trust prompt, then uses their tools", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(
      join(cwd, ".mcp.json"),
      JSON.stringify({ mcpServers: { t: { command: process.execPath, args: [trouble] } } }),
    );
    const script = join(home, "script.json");
    await writeFile(
      script,
      JSON.stringify([
        { content: [{ type: "text", text: "hello back" }] },
        { content: [{ type: "toolCall", name: "mcp__t__fail", arguments: {} }] },
        { content: [{ type: "text", text: "all done" }] },
      ]),
    );
    const tmux = await startGyre({ cwd, home, script });
    const prompt = await tmux.waitFor("Trust this folder?");
    expect(prompt).toContain("Its .mcp.json would start these MCP servers:");
    expect(prompt).toContain(`t: ${process.execPath} ${trouble}`);
    await tmux.type("y");
    await tmux.send(["Enter"]);
    await tmux.waitFor("Enter send");
    await tmux.type("hi");
    await tmux.send(["Enter"]);
    await tmux.waitFor("hello back");
    // The TUI does not wait for servers; it says when one is ready.
    await tmux.waitFor(/MCP server "t" connected with \d+ tools\./, 20_000);
    await tmux.type("go");
    await tmux.send(["Enter"]);
    const screen = await tmux.waitFor("all done", 20_000);
    expect(screen).toContain("the widget is broken");
  }, 60_000);

  it("says a server is ready when it connected before the screen was up", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(
      join(home, "mcp.json"),
      JSON.stringify({ mcpServers: { t: { command: process.execPath, args: [trouble] } } }),
    );
    // An extension that holds session_start for 2.5 s: the server is connected long before the
    // screen subscribes, so its "connected" news went to no one (the screen used to say nothing).
    const slowStart = join(home, "slow-start.ts");
    await writeFile(
      slowStart,
      'export default (api) => api.on("session_start", () => new Promise((resolve) => setTimeout(resolve, 2500)));\n',
    );
    const script = join(home, "script.json");
    await writeFile(script, JSON.stringify([{ content: [{ type: "text", text: "hello back" }] }]));
    const tmux = await startGyre({ cwd, home, script, args: `-e ${slowStart}` });
    const ready = await tmux.waitFor(/MCP server "t" connected with \d+ tools\./, 20_000);
    expect(ready).toContain("Enter send");
    expect(ready).not.toContain("Connecting to");
  }, 60_000);

  it("says which servers are connecting, lists their state and stderr with /mcp, and asks before sampling", async () => {
    const { cwd, home } = await createWorkspace();
    const crasher = "console.error('boom: no token configured'); process.exit(3)";
    // "everything" starts once the test has seen it said to be connecting: on a fast machine it
    // had connected before the screen was up, and the screen then rightly said so instead.
    const gate = join(home, "start-everything");
    const gated = `while [ ! -e '${gate}' ]; do sleep 0.05; done; exec '${process.execPath}' '${everything}' stdio`;
    await writeFile(
      join(home, "mcp.json"),
      JSON.stringify({
        mcpServers: {
          everything: { command: "sh", args: ["-c", gated] },
          broken: { command: process.execPath, args: ["-e", crasher] },
        },
      }),
    );
    const script = join(home, "script.json");
    await writeFile(
      script,
      JSON.stringify([
        {
          content: [
            { type: "toolCall", name: "mcp__everything__trigger-sampling-request", arguments: { prompt: "a haiku" } },
          ],
        },
        { content: [{ type: "text", text: "sampled-in-the-tui" }] },
        { content: [{ type: "text", text: "all done" }] },
      ]),
    );
    const tmux = await startGyre({ cwd, home, script, height: 50 });
    // The crasher may already have failed when the screen opens: then only "everything" is connecting.
    await tmux.waitFor(
      /Connecting to (2 MCP servers \(everything, broken\)|MCP server "everything") in the background/,
    );
    await writeFile(gate, "");
    await tmux.waitFor('MCP server "everything" connected with', 20_000);
    await tmux.waitFor('MCP server "broken"', 20_000);
    await tmux.type("/mcp");
    await tmux.send(["Enter"]);
    const listed = await tmux.waitFor("boom: no token configured", 10_000);
    expect(listed).toMatch(/everything\s+ready with \d+ tools/);
    expect(listed).toMatch(/broken\s+(failed|restarting)/);
    await tmux.type("go");
    await tmux.send(["Enter"]);
    // The dialog stays whole while the spinner ticks above it: once the status line has counted
    // a second, its frames have been drawn under the open dialog (a title holding a newline once
    // made them overwrite the title and leave the old status line behind).
    const asked = await tmux.waitFor(
      (screen) =>
        screen.includes('MCP server "everything" asks to use the model') &&
        /trigger-sampling-request running [1-9]\d*s/.test(screen),
      20_000,
    );
    expect(asked).toContain("a haiku");
    expect(asked.match(/esc to interrupt/g)).toHaveLength(1);
    expect(asked).toMatch(/^\(1 message, up to \d+ tokens, with a system prompt\) *$/m);
    expect(asked).toMatch(/^\S+ · sandbox workspace-write, network off *$/m);
    await tmux.send(["Enter"]);
    const screen = await tmux.waitFor("all done", 20_000);
    expect(screen).toContain("LLM sampling result");
  }, 90_000);

  it("completes @server: with the server's resources and sees a resource the server adds mid-session", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(
      join(home, "mcp.json"),
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } }),
    );
    const script = join(home, "script.json");
    const zip = { name: "notes-for-gyre.gz", data: "data:text/plain,hello%20from%20the%20test" };
    await writeFile(
      script,
      JSON.stringify([
        { content: [{ type: "text", text: "read the features" }] },
        { content: [{ type: "toolCall", name: "mcp__everything__gzip-file-as-resource", arguments: zip }] },
        { content: [{ type: "text", text: "zipped it" }] },
      ]),
    );
    const tmux = await startGyre({ cwd, home, script, height: 40 });
    await tmux.waitFor('MCP server "everything" connected with', 20_000);
    await tmux.type("@everything:");
    await tmux.waitFor("demo://resource/static/document/architecture.md", 10_000);
    await tmux.type("features");
    await tmux.waitFor((screen) => !screen.includes("architecture.md") && screen.includes("features.md"), 10_000);
    await tmux.send(["Tab"]);
    await tmux.type("summarize");
    await tmux.waitFor("@everything:demo://resource/static/document/features.md summarize");
    await tmux.send(["Enter"]);
    await tmux.waitFor("read the features", 20_000);
    // The resource's text went to the model with the prompt (the journal keeps what was sent; the
    // screen can show the answer a moment before the session file is written).
    expect(
      await readJournal(join(home, "sessions"), 'uri=\\"demo://resource/static/document/features.md\\"'),
    ).toContain('uri=\\"demo://resource/static/document/features.md\\"');

    await tmux.type("zip it");
    await tmux.send(["Enter"]);
    await tmux.waitFor("zipped it", 20_000);
    // The list was cached at the first completion; the server's list_changed refreshed it.
    await tmux.type("@everything:notes");
    await tmux.waitFor("demo://resource/session/notes-for-gyre.gz", 10_000);
  }, 90_000);
});

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createWorkspace, gyreBin } from "../helpers/run-cli.js";
import { startTmux, type TmuxSession } from "../interactive/tmux-session.js";

const trouble = fileURLToPath(new URL("./fixtures/trouble-server.mjs", import.meta.url));
let sessions: TmuxSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.map((session) => session.kill()));
  sessions = [];
});

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
    const env = `env -i PATH="${process.env.PATH}" HOME="${home}" GYRE_HOME="${home}" TERM=xterm-256color`;
    const tmux = await startTmux({
      command: `${env} node ${gyreBin} --provider faux --faux-script ${script}`,
      cwd,
      width: 160,
    });
    sessions.push(tmux);
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
    await tmux.waitFor('MCP server "t" connected with 6 tools.', 20_000);
    await tmux.type("go");
    await tmux.send(["Enter"]);
    const screen = await tmux.waitFor("all done", 20_000);
    expect(screen).toContain("the widget is broken");
  }, 60_000);
});

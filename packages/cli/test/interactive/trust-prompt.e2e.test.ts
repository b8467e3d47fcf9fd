import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { createWorkspace, gyreBin } from "../helpers/run-cli.js";
import { startTmux, type TmuxSession } from "./tmux-session.js";

let sessions: TmuxSession[] = [];
let server: FakeModelServer | undefined;

afterEach(async () => {
  await Promise.all(sessions.map((session) => session.kill()));
  sessions = [];
  await server?.close();
  server = undefined;
});

describe("folder trust in interactive mode", () => {
  it("asks before applying a project's .gyre/ config, remembers a yes, and does not ask again", async () => {
    server = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
    const { cwd, home } = await createWorkspace();
    await mkdir(join(cwd, ".gyre"));
    await writeFile(join(cwd, ".gyre", "settings.json"), JSON.stringify({ thinking: "high" }));
    const env = `env -i PATH="${process.env.PATH}" HOME="${home}" GYRE_HOME="${home}" TERM=xterm-256color`;
    const command = `${env} node ${gyreBin} --provider openai --model gpt-4o --base-url '${server.url}/v1'`;

    const first = await startTmux({ command, cwd, width: 100 });
    sessions.push(first);
    await first.waitFor("Trust this folder?");
    await first.type("y");
    await first.send(["Enter"]);
    // The project's settings apply once trusted: its thinking level shows in the footer.
    await first.waitFor("thinking high");
    const trusted = JSON.parse(await readFile(join(home, "trusted-projects.json"), "utf8")) as {
      projects: Record<string, unknown>;
    };
    expect(Object.keys(trusted.projects)).toHaveLength(1);
    await first.kill();

    const second = await startTmux({ command, cwd, width: 100 });
    sessions.push(second);
    const screen = await second.waitFor("thinking high");
    expect(screen).not.toContain("Trust this folder?");
  });

  it("leaves the project's config off when the answer is no", async () => {
    server = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
    const { cwd, home } = await createWorkspace();
    await mkdir(join(cwd, ".gyre"));
    await writeFile(join(cwd, ".gyre", "settings.json"), JSON.stringify({ thinking: "high" }));
    const env = `env -i PATH="${process.env.PATH}" HOME="${home}" GYRE_HOME="${home}" TERM=xterm-256color`;
    const tmux = await startTmux({
      command: `${env} node ${gyreBin} --provider openai --model gpt-4o --base-url '${server.url}/v1'`,
      cwd,
      width: 100,
    });
    sessions.push(tmux);
    await tmux.waitFor("Trust this folder?");
    await tmux.type("n");
    await tmux.send(["Enter"]);
    const screen = await tmux.waitFor("thinking off");
    expect(screen).toContain("not trusted");
  });
});

import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { createWorkspace, gyreBin } from "../helpers/run-cli.js";
import { startGyre, stopGyres, submit } from "./gyre-in-tmux.js";
import { startTmux } from "./tmux-session.js";

const run = promisify(execFile);
afterEach(stopGyres);

describe("quick model and thinking switching", () => {
  it("cycles the --models list with Ctrl+P, shows it in the footer, and sends the next request to the new model", async () => {
    const { tmux, server } = await startGyre(() => ({ text: "answered" }), {
      args: ["--models", "gpt-4o,gpt-4o-mini"],
    });
    await tmux.send(["C-p"]);
    const screen = await tmux.waitFor("openai/gpt-4o-mini · thinking off");
    expect(screen).toContain("Model: openai/gpt-4o-mini");
    await submit(tmux, "which model?");
    await tmux.waitFor("answered");
    expect(server.requests[0]?.body.model).toBe("gpt-4o-mini");
    // Round the list: back to the first.
    await tmux.send(["C-p"]);
    await tmux.waitFor(/openai\/gpt-4o · thinking off/);
    await submit(tmux, "and now?");
    await tmux.waitFor(() => server.requests.length === 2);
    expect(server.requests[1]?.body.model).toBe("gpt-4o");
    // Shift+Ctrl+P as a kitty-protocol terminal sends it (CSI 112;6u) goes backwards, round the list.
    // Once the second answer is on screen and the run has ended (a switch while it runs is refused).
    await tmux.waitFor(
      (screen) => (screen.match(/^\s+answered\s*$/gm) ?? []).length === 2 && !screen.includes("esc to interrupt"),
    );
    await run("tmux", ["send-keys", "-t", tmux.name, "-H", ..."1b 5b 31 31 32 3b 36 75".split(" ")]);
    await tmux.waitFor("openai/gpt-4o-mini · thinking off");
  });

  it("applies a :level from --models and cycles thinking levels with Alt+T", async () => {
    const { tmux, server } = await startGyre(() => ({ text: "thought" }), { args: ["--models", "gpt-4o,gpt-5:high"] });
    await tmux.send(["C-p"]);
    await tmux.waitFor("openai/gpt-5 · thinking high");
    await tmux.send(["M-t"]);
    await tmux.waitFor("openai/gpt-5 · thinking off");
    await tmux.send(["M-t"]);
    await tmux.waitFor("openai/gpt-5 · thinking low");
    await submit(tmux, "think a little");
    await tmux.waitFor("thought");
    expect(server.requests[0]?.body.model).toBe("gpt-5");
    expect(JSON.stringify(server.requests[0]?.body)).toContain('"reasoning_effort":"low"');
  });

  it("says a model without thinking keeps it off", async () => {
    const { tmux } = await startGyre(() => ({ text: "unused" }));
    await tmux.send(["M-t"]);
    await tmux.waitFor("gpt-4o does not support thinking; the level stays off.");
  });

  it("opens the model picker with Ctrl+L", async () => {
    const { tmux, server } = await startGyre(() => ({ text: "picked" }), { args: ["--models", "gpt-4o,gpt-4o-mini"] });
    await tmux.send(["C-l"]);
    await tmux.waitFor("openai/gpt-4o-mini");
    await tmux.type("gpt-4o-mini");
    await tmux.send(["Enter"]);
    await tmux.waitFor("Model: openai/gpt-4o-mini");
    await submit(tmux, "hello");
    await tmux.waitFor("picked");
    expect(server.requests[0]?.body.model).toBe("gpt-4o-mini");
  });

  it("takes its keys from $GYRE_HOME/keybindings.json and reports a bad entry", async () => {
    const { tmux, server } = await startGyre(() => ({ text: "rebound" }), {
      args: ["--models", "gpt-4o,gpt-4o-mini"],
      setup: async ({ home }) => {
        await writeFile(
          join(home, "keybindings.json"),
          JSON.stringify({ cycleModelForward: "ctrl+n", abort: "ctrl+bogus" }),
        );
      },
    });
    const start = await tmux.waitFor("not a key");
    expect(start.replace(/\s+/g, " ")).toContain('"abort" has "ctrl+bogus", not a key; write keys like ctrl+p');
    await tmux.send(["C-n"]);
    await tmux.waitFor("openai/gpt-4o-mini · thinking off");
    // Ctrl+P no longer cycles (it is read before the Enter that sends the prompt).
    await tmux.send(["C-p"]);
    await submit(tmux, "go");
    await tmux.waitFor("rebound");
    expect(server.requests[0]?.body.model).toBe("gpt-4o-mini");
  });

  it("refuses a --models pattern that matches nothing before the screen opens", async () => {
    const { cwd, home } = await createWorkspace();
    const tmux = await startTmux({
      command: `env -i PATH="${process.env.PATH}" GYRE_HOME="${home}" HOME="${home}" TERM=xterm-256color node ${gyreBin} --provider openai --model gpt-4o --api-key x --models 'nope-*'; echo "exit=$?"; sleep 30`,
      cwd,
      width: 120,
      height: 20,
    });
    try {
      const screen = await tmux.waitFor("exit=");
      expect(screen).toContain('No configured model matches "nope-*" in --models; run gyre --list-models to see them.');
      expect(screen).toContain("exit=2");
    } finally {
      await tmux.kill();
    }
  });
});

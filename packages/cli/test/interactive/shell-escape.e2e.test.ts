import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cliEnv, runCli } from "../helpers/run-cli.js";
import { eventually, readSessionFiles, startGyre, stopGyres, submit, userTexts } from "./gyre-in-tmux.js";

afterEach(stopGyres);

describe("!cmd and !!cmd in the editor", () => {
  it("runs !cmd in the sandbox, shows its output, and sends it to the model with the next prompt", async () => {
    const { tmux, server, home, cwd } = await startGyre(() => ({ text: "seen-your-shell" }));
    await submit(tmux, "!echo shell-out-$((6*7)); echo more > made-by-shell.txt");
    const screen = await tmux.waitFor(/shell-out-42[\s\S]*exit 0/);
    expect(screen).toMatch(/● ! echo shell-out/);
    expect(server.requests).toHaveLength(0);
    await submit(tmux, "what did it print?");
    await tmux.waitFor("seen-your-shell");
    const sent = userTexts(server.requests[0]?.body).join("\n");
    expect(sent).toContain("shell-out-42");
    expect(sent).toContain("what did it print?");
    // Persisted as a user message, with the pre-command checkpoint after it (what /rewind restores).
    const entries = await eventually(async () => {
      const [file] = await readSessionFiles(home);
      const types = file?.entries.map((entry) =>
        entry.type === "message" ? `message:${(entry.message as { role: string }).role}` : `${entry.type}`,
      );
      return types?.includes("message:assistant") ? file?.entries : undefined;
    }, "the session file");
    const shellAt = entries.findIndex((entry) => JSON.stringify(entry).includes("shell-out-42"));
    expect(shellAt).toBeGreaterThan(0);
    const after = entries.slice(shellAt + 1, shellAt + 3).map((entry) => `${entry.type}:${entry.reason}`);
    expect(after).toEqual(["checkpoint:turn", "checkpoint:turn_end"]);
    // Rewinding the code to before the !cmd removes the file it wrote.
    expect(existsSync(join(cwd, "made-by-shell.txt"))).toBe(true);
    await tmux.kill();
    const [file] = await readSessionFiles(home);
    const rewound = await runCli(
      ["--session", file?.path as string, "--rewind", entries[shellAt]?.id as string, "--restore", "code"],
      { cwd, env: cliEnv(home) },
    );
    expect(rewound.stderr).toBe("");
    expect(existsSync(join(cwd, "made-by-shell.txt"))).toBe(false);
  });

  it("keeps !!cmd out of the context", async () => {
    const { tmux, server } = await startGyre(() => ({ text: "no-shell-seen" }));
    await submit(tmux, "!!echo private-$((40+2))");
    await tmux.waitFor(/private-42[\s\S]*exit 0/);
    expect(await tmux.capture()).toMatch(/● !! echo private/);
    await submit(tmux, "hello");
    await tmux.waitFor("no-shell-seen");
    expect(JSON.stringify(server.requests[0]?.body)).not.toContain("private-42");
  });

  it("draws !cmd and !!cmd records again, in place, when gyre -c continues the session", async () => {
    const first = await startGyre(() => ({ text: "answer-after-shells" }));
    await submit(first.tmux, "!echo ctx-$((1+1))");
    await first.tmux.waitFor(/ctx-2[\s\S]*exit 0/);
    await submit(first.tmux, "!!echo private-$((2+2))");
    await first.tmux.waitFor(/private-4[\s\S]*exit 0/);
    await submit(first.tmux, "after the shells");
    await first.tmux.waitFor("answer-after-shells");
    await first.tmux.send(["C-d"]);
    await first.tmux.waitForExit();

    const { tmux } = await startGyre(() => ({ text: "unused" }), {
      args: ["-c"],
      workspace: { cwd: first.cwd, home: first.home },
    });
    const screen = await tmux.waitFor("answer-after-shells");
    const at = (pattern: RegExp) => screen.search(pattern);
    // Each as it looked: its header, its output under it, how it ended; then the prompt after them.
    expect(at(/● ! echo ctx-\$\(\(1\+1\)\)/)).toBeGreaterThan(-1);
    expect(at(/\n {2}ctx-2\s*\n/)).toBeGreaterThan(at(/● ! echo ctx/));
    expect(at(/● !! echo private-\$\(\(2\+2\)\)/)).toBeGreaterThan(at(/\n {2}ctx-2\s*\n/));
    expect(at(/\n {2}private-4\s*\n/)).toBeGreaterThan(at(/● !! echo private/));
    expect(at(/after the shells/)).toBeGreaterThan(at(/\n {2}private-4\s*\n/));
    expect(screen.match(/exit 0/g)?.length).toBeGreaterThanOrEqual(2);
  });

  it("stops a running !cmd on Esc and shows what it printed", async () => {
    const { tmux } = await startGyre(() => ({ text: "unused" }));
    await submit(tmux, "!echo before-sleep; sleep 30");
    // The output line itself (indented under the header), not the command's echo in the header.
    await tmux.waitFor(/\n {2}before-sleep[\s\S]*esc to interrupt/);
    // The block's header counts the seconds while it runs.
    await tmux.waitFor(/● ! echo before-sleep; sleep 30 · [1-9]s/);
    const started = Date.now();
    await tmux.send(["Escape"]);
    const screen = await tmux.waitFor(/aborted · \d/);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(screen).toMatch(/\n {2}before-sleep/);
    expect(screen).not.toContain("esc to interrupt");
  });

  it("obeys --sandbox read-only: the command cannot write to the workspace", async () => {
    const { tmux, cwd } = await startGyre(() => ({ text: "unused" }), { args: ["--sandbox", "read-only"] });
    await submit(tmux, "!touch blocked.txt");
    const screen = await tmux.waitFor(/exit 1/);
    expect(screen).toMatch(/Read-only file system/);
    expect(existsSync(join(cwd, "blocked.txt"))).toBe(false);
  });

  it("runs a !cmd typed while the agent works once the run has ended, after its answer", async () => {
    const { tmux, server } = await startGyre(() => ({
      text: `${"slow ".repeat(100)}answer-end`,
      chunkSize: 5,
      delayMs: 30,
    }));
    await submit(tmux, "write slowly");
    await tmux.waitFor("esc to interrupt");
    await submit(tmux, "!echo waited-$((3*3))");
    await tmux.waitFor("runs once the agent finishes");
    const screen = await tmux.waitFor(/answer-end[\s\S]*waited-9[\s\S]*exit 0/, 20_000);
    expect(screen).not.toContain("esc to interrupt");
    expect(server.requests).toHaveLength(1);
  });
});

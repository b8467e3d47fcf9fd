import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { eventually, readSessionFiles, startGyre, stopGyres, submit } from "../interactive/gyre-in-tmux.js";
import { pathWithoutGit } from "./workspace.js";

afterEach(stopGyres);

describe("/rewind and /diff in tmux", () => {
  it("/diff lists the session's changes and /rewind shows them, then takes them back", async () => {
    const { tmux, cwd, home } = await startGyre(({ body }) =>
      body.messages?.at(-1)?.role === "user"
        ? { toolCalls: [{ name: "bash", arguments: { command: "echo made > made-by-agent.txt" } }] }
        : { text: "answer-done" },
    );
    await submit(tmux, "make a file");
    await tmux.waitFor("answer-done");
    expect(await readFile(join(cwd, "made-by-agent.txt"), "utf8")).toBe("made\n");

    // The run ends just after its answer shows, with its end checkpoint; /diff waits for idle.
    await eventually(async () => {
      const [file] = await readSessionFiles(home);
      return JSON.stringify(file?.entries ?? []).includes('"reason":"turn_end"') ? true : undefined;
    }, "the run's end checkpoint");
    await submit(tmux, "/diff --stat");
    await tmux.waitFor(/added {4}made-by-agent\.txt\s+\+1 -0/);

    await submit(tmux, "/rewind");
    await tmux.waitFor("Rewind to before which message?");
    await tmux.send(["Enter"]);
    await tmux.waitFor("Restore what?");
    await tmux.send(["Enter"]);
    await tmux.waitFor("Files: 1 deleted");
    await tmux.send(["Enter"]);
    await tmux.waitFor("Rewound: 1 deleted");
    expect(existsSync(join(cwd, "made-by-agent.txt"))).toBe(false);
  });

  it("/diff without git lists what write and edit changed, from the copies they saved", async () => {
    const { tmux, cwd } = await startGyre(
      ({ body }) =>
        body.messages?.at(-1)?.role === "user"
          ? {
              toolCalls: [
                { name: "write", arguments: { path: "written.txt", content: "new\n" } },
                { name: "edit", arguments: { path: "existing.txt", edits: [{ oldText: "old", newText: "new" }] } },
                { name: "bash", arguments: { command: "echo bash > by-bash.txt" } },
              ],
            }
          : { text: "answer-done" },
      {
        setup: async ({ cwd }) => writeFile(join(cwd, "existing.txt"), "old\n"),
        env: { PATH: await pathWithoutGit() },
      },
    );
    await submit(tmux, "/diff");
    await tmux.waitFor("has not changed any files with write or edit yet");
    await submit(tmux, "change files");
    await tmux.waitFor("answer-done");
    expect(await readFile(join(cwd, "existing.txt"), "utf8")).toBe("new\n");
    await submit(tmux, "/diff");
    await tmux.waitFor("1 modified, 1 added");
    const screen = await tmux.capture();
    expect(screen).toContain("modified existing.txt");
    expect(screen).toContain("added    written.txt");
    expect(screen).not.toMatch(/added\s+by-bash\.txt/);
    expect(screen).toContain("only what write and edit changed is listed, not bash");
  });
});

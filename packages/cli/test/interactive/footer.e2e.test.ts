import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { startGyre, stopGyres, submit } from "./gyre-in-tmux.js";

afterEach(stopGyres);

const run = promisify(execFile);

/** Sets a status at session_start and after every turn, like the status-counter example. */
const statusExtension = `export default function (api) {
  let turns = 0;
  api.on("session_start", (_event, ctx) => ctx.ui.setStatus("guard", "guard-on"));
  api.on("turn_end", (_event, ctx) => { turns++; ctx.ui.setStatus("activity", "turns-seen-" + turns); });
}
`;

describe("the footer", () => {
  it("shows extension statuses on one status line, not as chat lines, including one set at start-up", async () => {
    const { tmux } = await startGyre(({ index }) => ({ text: `answer-number-${index}` }), {
      args: ["-e", "status.ts"],
      setup: ({ cwd }) => writeFile(join(cwd, "status.ts"), statusExtension),
    });
    await tmux.waitFor("guard-on");
    await submit(tmux, "first");
    await tmux.waitFor("turns-seen-1");
    await submit(tmux, "second");
    const screen = await tmux.waitFor("turns-seen-2");
    expect(screen).not.toContain("turns-seen-1");
    expect(screen).not.toContain("guard: guard-on");
    const lines = screen.trimEnd().split("\n");
    // The statuses are the screen's last line, under the footer's usage line.
    expect(lines.at(-1)).toContain("guard-on · turns-seen-2");
    expect(lines.at(-2)).toContain("thinking off");
  });

  it("shows the git branch of the folder", async () => {
    const { tmux } = await startGyre(() => ({ text: "unused" }), {
      setup: async ({ cwd }) => {
        await run("git", ["init", "-q", "-b", "feature-footer"], { cwd });
      },
    });
    await tmux.waitFor("(feature-footer)");
  });
});

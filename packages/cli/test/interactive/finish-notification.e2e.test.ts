import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { eventually, startGyre, stopGyres, submit } from "./gyre-in-tmux.js";

const run = promisify(execFile);
afterEach(stopGyres);

const NOTIFICATION = /\x1b\]777;notify;gyre;gyre finished after \d+s\x07/g;

describe("the finish notification", () => {
  // Three streamed runs (1.2 s each), a sandboxed !! command and a dozen waits, each bounded on
  // its own: 6-10 s at load 5-10, but over the layer's 20 s test timeout at load 20, which cut
  // off a wait still within its bound without saying which; hence 60 s.
  it("sends OSC 777 after a run longer than notifyAfterMs, and not while the terminal reports focus", async () => {
    const { tmux, home } = await startGyre(
      () => ({ text: `${"slow ".repeat(40)}done-now`, chunkSize: 10, delayMs: 60 }),
      {
        setup: async ({ home }) => {
          await writeFile(join(home, "settings.json"), JSON.stringify({ notify: "osc777", notifyAfterMs: 300 }));
        },
      },
    );
    // What gyre writes to the terminal, before tmux interprets it.
    const raw = join(home, "terminal-output.bin");
    await run("tmux", ["pipe-pane", "-o", "-t", tmux.name, `cat >> '${raw}'`]);
    const notifications = async () => (await readFile(raw, "latin1").catch(() => "")).match(NOTIFICATION)?.length ?? 0;

    await submit(tmux, "first");
    await tmux.waitFor("done-now");
    await eventually(async () => ((await notifications()) === 1 ? true : undefined), "the first notification");

    // The terminal says it has focus (CSI I): the user is looking, so no notification.
    await run("tmux", ["send-keys", "-t", tmux.name, "-H", "1b", "5b", "49"]);
    await submit(tmux, "second");
    await tmux.waitFor((screen) => screen.split("done-now").length === 3 && !screen.includes("esc to interrupt"));
    // A !! command runs only once the prompt has fully settled, its notification decided.
    await submit(tmux, "!!echo settled-$((1+1))");
    await tmux.waitFor("settled-2");
    expect(await notifications()).toBe(1);
    // Focus lost (CSI O): the next long run notifies again.
    await run("tmux", ["send-keys", "-t", tmux.name, "-H", "1b", "5b", "4f"]);
    await submit(tmux, "third");
    await eventually(
      async () => ((await notifications()) === 2 ? true : undefined),
      "the notification after focus left",
    );
    // Focus reports never reach the editor as text.
    expect(await tmux.capture()).not.toMatch(/\[I|\[O/);
  }, 60_000);
});

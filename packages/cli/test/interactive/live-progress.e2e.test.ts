import { afterEach, describe, expect, it } from "vitest";
import { startGyre, stopGyres, submit } from "./gyre-in-tmux.js";

afterEach(stopGyres);

/** The number of seconds in the first "<label> <n>s" on the screen. */
function secondsAfter(screen: string, label: string): number | undefined {
  const match = new RegExp(`${label} (\\d+)s`).exec(screen);
  return match ? Number(match[1]) : undefined;
}

describe("the live status line", () => {
  it("shows the running tool with a ticking elapsed time, the keys, and the tail of its output", async () => {
    const { tmux } = await startGyre(({ index }) =>
      index === 0
        ? { toolCalls: [{ name: "bash", arguments: { command: "echo live-tail-line; sleep 4" } }] }
        : { text: "long-job-done" },
    );
    await submit(tmux, "run the long job");
    const early = await tmux.waitFor((screen) => (secondsAfter(screen, "bash running") ?? -1) >= 1);
    expect(early).toContain("esc to interrupt");
    expect(early).toContain("live-tail-line");
    expect(early).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] bash running/);
    const first = secondsAfter(early, "bash running") ?? 0;
    await tmux.waitFor((screen) => (secondsAfter(screen, "bash running") ?? -1) > first);
    // The answer may paint a frame before the run ends; then the live line goes.
    await tmux.waitFor((screen) => screen.includes("long-job-done") && !screen.includes("esc to interrupt"));
  });

  it("counts streamed tokens and cost while an answer streams", async () => {
    const essay = "word ".repeat(400);
    const { tmux } = await startGyre(() => ({ text: `${essay} essay-end`, chunkSize: 20, delayMs: 20 }));
    await submit(tmux, "write an essay");
    const screen = await tmux.waitFor((text) => /working… \(\d+s · ↓[1-9][\d.k]* tokens · \$\d/.test(text));
    expect(screen).toContain("esc to interrupt");
    await tmux.waitFor("essay-end", 20_000);
  });
});

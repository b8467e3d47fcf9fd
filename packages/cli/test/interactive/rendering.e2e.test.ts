import { afterEach, describe, expect, it } from "vitest";
import { startGyre, stopGyres, submit } from "./gyre-in-tmux.js";

afterEach(stopGyres);

/** The styled screen line that contains `text`. */
function styledLine(screen: string, text: string): string {
  return screen.split("\n").find((line) => line.includes(text)) ?? "";
}

describe("answers in the terminal", () => {
  it("draws a ```diff block under a clean border, removals red and additions green", async () => {
    const answer =
      "Change:\n\n```diff\n-  for (let i = 1; i < n; i++) {\n+  for (let i = 0; i < n; i++) {\n```\n\ndiff-done";
    const { tmux } = await startGyre(() => ({ text: answer }));
    await submit(tmux, "show the change");
    const shown = await tmux.waitFor("diff-done");
    // The fence is drawn as a rule with the language as a tag, not as Markdown text.
    expect(shown).toContain("─── diff");
    expect(shown).not.toContain("```");
    const screen = await tmux.captureStyled();
    // tmux writes SGR colours as 31/32 (or 91/92) inside an escape; the keyword colour would be 35.
    expect(styledLine(screen, "let i = 1")).toMatch(/\x1b\[(?:[\d;]*;)?31m[^\x1b]*-\s+for/);
    expect(styledLine(screen, "let i = 0")).toMatch(/\x1b\[(?:[\d;]*;)?32m[^\x1b]*\+\s+for/);
    expect(styledLine(screen, "let i = 1")).not.toMatch(/\x1b\[(?:[\d;]*;)?35mlet/);
  });
});

describe("counts on screen", () => {
  it("says 1 more line, not 1 more lines, under a collapsed tool output", async () => {
    const { tmux } = await startGyre(({ index }) =>
      index === 0 ? { toolCalls: [{ name: "bash", arguments: { command: "seq 1 11" } }] } : { text: "counted-done" },
    );
    await submit(tmux, "count");
    const screen = await tmux.waitFor("counted-done");
    expect(screen).toMatch(/… 1 more line \(Ctrl\+O to expand\)/);
  });

  it("labels a 30-line paste as 30 lines", async () => {
    const { tmux } = await startGyre(() => ({ text: "unused" }));
    const lines = Array.from({ length: 30 }, (_, index) => `pasted line ${index + 1}`);
    await tmux.paste(`${lines.join("\n")}\n`);
    await tmux.waitFor("[paste #1 +30 lines]");
  });
});

describe("aborting and thinking", () => {
  it("keeps what a tool printed when Esc aborts it, and marks it aborted", async () => {
    const { tmux } = await startGyre(({ index }) =>
      index === 0
        ? { toolCalls: [{ name: "bash", arguments: { command: "echo printed-before-abort; sleep 30" } }] }
        : { text: "unused" },
    );
    await submit(tmux, "run the long job");
    await tmux.waitFor("printed-before-abort");
    await tmux.send(["Escape"]);
    const screen = await tmux.waitFor("⏹ aborted");
    expect(screen).toContain("printed-before-abort");
    expect(screen).not.toContain("was cancelled because the run was aborted");
  });

  it("says --thinking has no effect on a model without reasoning, in the footer too", async () => {
    const { tmux } = await startGyre(() => ({ text: "unused" }), { args: ["--thinking", "high"] });
    const screen = await tmux.waitFor("does not support thinking");
    expect(screen).toContain("--thinking high has no effect");
    expect(screen).toContain("thinking high (not supported by this model)");
  });
});

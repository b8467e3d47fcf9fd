import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cliEnv, runCli } from "../helpers/run-cli.js";
import { startGyre, stopGyres, submit, userTexts } from "./gyre-in-tmux.js";
import type { TmuxSession } from "./tmux-session.js";

afterEach(stopGyres);

/** An extension with a command that notifies, written like a newcomer's (kit: guard.ts). */
const guardExtension = `export default function (api) {
  api.registerCommand("guard", {
    description: "Show the guard's count",
    handler: async (args, ctx) => { ctx.ui.notify("guard-notice args=" + args); },
  });
}
`;

async function writeGuardAndTemplate({ cwd, home }: { cwd: string; home: string }): Promise<void> {
  await writeFile(join(cwd, "guard.ts"), guardExtension);
  await mkdir(join(home, "prompts"), { recursive: true });
  await writeFile(
    join(home, "prompts", "explainit.md"),
    "---\ndescription: Explain a file simply\n---\nExplain $1 like I am new here.\n",
  );
}

/** Esc closes the completion menu, then Ctrl+U empties the line. */
async function closeMenu(tmux: TmuxSession, typed: string): Promise<void> {
  await tmux.send(["Escape"]);
  await tmux.waitFor((screen) => !screen.includes(" → "));
  await tmux.send(["C-u"]);
  await tmux.waitFor((screen) => !screen.split("\n").some((line) => line.trim() === typed));
}

describe("extension commands and prompt templates in the terminal", () => {
  it("runs an extension command and expands a prompt template instead of calling them unknown", async () => {
    const { tmux, server } = await startGyre(({ index }) => ({ text: `answer-number-${index}` }), {
      args: ["-e", "guard.ts"],
      setup: writeGuardAndTemplate,
    });
    await submit(tmux, "/guard hi");
    await tmux.waitFor("guard-notice args=hi");
    await submit(tmux, "/explainit src/stats.js");
    await tmux.waitFor("answer-number-0");
    expect(userTexts(server.requests[0]?.body).join(" ")).toContain("Explain src/stats.js like I am new here.");
    expect(await tmux.capture()).not.toContain("Unknown command");
  });

  it("expands a prompt template typed once the answer shows, while the run is still being written away", async () => {
    const slowEnd =
      'export default (api) => api.on("agent_end", () => new Promise((resolve) => setTimeout(resolve, 1500)));\n';
    const { tmux, server } = await startGyre(({ index }) => ({ text: `answer-number-${index}` }), {
      args: ["-e", "slow-end.ts"],
      setup: async (dirs) => {
        await writeGuardAndTemplate(dirs);
        await writeFile(join(dirs.cwd, "slow-end.ts"), slowEnd);
      },
    });
    await submit(tmux, "first question");
    await tmux.waitFor("answer-number-0");
    await submit(tmux, "/explainit src/stats.js");
    await tmux.waitFor("answer-number-1");
    expect(userTexts(server.requests[1]?.body).at(-1)).toContain("Explain src/stats.js like I am new here.");
    expect(await tmux.capture()).not.toContain("cannot run while the agent works");
  });

  it("lists extension commands and templates in the / menu and in /help, in aligned columns", async () => {
    const { tmux } = await startGyre(() => ({ text: "unused" }), {
      args: ["-e", "guard.ts"],
      setup: writeGuardAndTemplate,
      height: 90,
    });
    await tmux.type("/gu");
    await tmux.waitFor("Show the guard's count");
    await closeMenu(tmux, "/gu");
    await tmux.type("/expl");
    await tmux.waitFor("Explain a file simply");
    await closeMenu(tmux, "/expl");
    await submit(tmux, "/help");
    const screen = await tmux.waitFor("Prompt templates");
    expect(screen).toContain("Extension commands");
    const lines = screen.split("\n");
    const columnOf = (text: string) => lines.find((line) => line.includes(text))?.indexOf(text) ?? -1;
    // The descriptions of commands with and without an argument hint start in one column.
    expect(columnOf("Pick the model")).toBeGreaterThan(0);
    expect(columnOf("Show commands and keys")).toBe(columnOf("Pick the model"));
  });
});

describe("Ctrl+C in the editor", () => {
  it("clears the editor on screen at once, and a clearing press does not count toward exiting", async () => {
    const { tmux } = await startGyre(() => ({ text: "unused" }));
    await tmux.type("abc-typed-text");
    await tmux.waitFor("abc-typed-text");
    await tmux.send(["C-c"]);
    await tmux.waitFor((screen) => !screen.includes("abc-typed-text"));
    await tmux.type("second-text");
    await tmux.waitFor("second-text");
    // Within the double-press window, but the editor had text: this only clears it.
    await tmux.send(["C-c"]);
    await tmux.waitFor((screen) => !screen.includes("second-text"));
    await tmux.type("still-here");
    const screen = await tmux.waitFor("still-here");
    expect(screen).toMatch(/thinking off/);
  });

  it("exits after two presses on an empty editor", async () => {
    const { tmux } = await startGyre(() => ({ text: "unused" }));
    await tmux.send(["C-c"]);
    await tmux.waitFor("Press Ctrl+C again to exit.");
    await tmux.send(["C-c"]);
    expect([0, undefined]).toContain(await tmux.waitForExit());
  });
});

describe("slash commands typed in one burst", () => {
  it("runs the command as typed, not a stale suggestion spliced into it", async () => {
    const { tmux } = await startGyre(() => ({ text: "unused" }));
    await tmux.type("/");
    await tmux.waitFor("Pick the model");
    await tmux.send(["cost", "Enter"], { literal: false });
    const screen = await tmux.waitFor(/cost \$|cache read/);
    expect(screen).not.toContain("Unknown command");
  });
});

describe("session information", () => {
  it("/session shows the file, id, tokens and cost, and quitting prints how to resume", async () => {
    const { tmux, home } = await startGyre(() => ({ text: "first-answer" }));
    await submit(tmux, "hello");
    await tmux.waitFor("first-answer");
    await submit(tmux, "/session");
    const screen = await tmux.waitFor("gyre --session");
    const id = /id\s+([0-9a-f-]{36})/.exec(screen)?.[1];
    expect(id).toBeDefined();
    expect(screen).toContain(join(home, "sessions"));
    expect(screen).toMatch(/cost\s+\$\d+\.\d{4}/);
    // The counts are the context's (fewer after a compaction), and say so.
    expect(screen).toMatch(/in context\s+1 user message, 1 assistant message, 0 tool calls/);
    await submit(tmux, "/quit");
    expect([0, undefined]).toContain(await tmux.waitForExit());
    expect(await tmux.capture()).toContain(`Resume this session with: gyre --session ${id}`);
  });
});

describe("the /resume picker", () => {
  it("shows a long first message beyond pi-tui's 32 columns", async () => {
    const first = "please look at the failing statistics tests and fix the off-by-one in sum";
    const { tmux } = await startGyre(() => ({ text: "earlier-answer" }), {
      width: 110,
      setup: async ({ cwd, home, url }) => {
        const env = cliEnv(home, { OPENAI_BASE_URL: `${url}/v1` });
        await runCli(["-p", "--provider", "openai", "--model", "gpt-4o", first], { cwd, env });
      },
    });
    await submit(tmux, "/resume");
    // A -p run is hidden until Ctrl+T shows it.
    await tmux.waitFor("1 -p run hidden");
    await tmux.send(["C-t"]);
    await tmux.waitFor("the failing statistics tests and fix");
  });
});

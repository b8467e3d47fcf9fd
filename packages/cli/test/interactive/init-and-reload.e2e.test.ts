import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { eventually, startGyre, stopGyres, submit, userTexts } from "./gyre-in-tmux.js";

afterEach(stopGyres);

describe("/init", () => {
  it("asks the model to look at the repository and write AGENTS.md, which it does with the write tool", async () => {
    const { tmux, server, cwd } = await startGyre(({ index }) =>
      index === 0
        ? { toolCalls: [{ name: "write", arguments: { path: "AGENTS.md", content: "# Agents\nRun npm test.\n" } }] }
        : { text: "Wrote AGENTS.md with the test command." },
    );
    await writeFile(join(cwd, "package.json"), JSON.stringify({ scripts: { test: "node --test" } }));
    await submit(tmux, "/init stress the tests");
    await tmux.waitFor(
      (screen) => screen.includes("Wrote AGENTS.md with the test command.") && !screen.includes("esc to interrupt"),
    );
    const prompt = userTexts(server.requests[0]?.body).join("\n");
    expect(prompt).toContain("Write an AGENTS.md for this repository");
    expect(prompt).toContain("Create AGENTS.md in the repository root.");
    expect(prompt).toContain("The user adds: stress the tests");
    expect(await readFile(join(cwd, "AGENTS.md"), "utf8")).toBe("# Agents\nRun npm test.\n");
    // A second /init updates the file rather than starting over (once idle: a !! runs only then).
    await submit(tmux, "!!echo idle-$((2+2))");
    await tmux.waitFor("idle-4");
    await submit(tmux, "/init");
    await eventually(async () => (server.requests.length >= 3 ? true : undefined), "the second /init request");
    expect(userTexts(server.requests[2]?.body).join("\n")).toContain("AGENTS.md already exists: read it first");
  });
});

describe("/reload", () => {
  it("reads settings, templates, AGENTS.md and extensions again and reports what changed", async () => {
    const { tmux, server, home } = await startGyre(() => ({ text: "ok-reloaded" }), {
      setup: async ({ home }) => {
        await mkdir(join(home, "extensions"), { recursive: true });
        await writeFile(join(home, "extensions", "ext.js"), 'export default (api) => api.addSystemPrompt("EXT-V1");\n');
      },
    });
    await submit(tmux, "/reload");
    await tmux.waitFor("Reloaded:");
    expect(await tmux.capture()).toContain("extensions: reloaded 1 of 1");

    await mkdir(join(home, "prompts"), { recursive: true });
    await writeFile(
      join(home, "prompts", "greet.md"),
      "---\ndescription: Greets\n---\nSay hello to $1 from the template.\n",
    );
    await writeFile(join(home, "settings.json"), JSON.stringify({ notify: "osc9" }));
    await writeFile(join(home, "AGENTS.md"), "Always answer in haiku (from AGENTS.md).\n");
    await writeFile(join(home, "extensions", "ext.js"), 'export default (api) => api.addSystemPrompt("EXT-V2");\n');
    await submit(tmux, "/reload");
    const screen = await tmux.waitFor("prompt templates: +greet");
    expect(screen).toContain("settings: notify changed");
    expect(screen).toMatch(/context files: .*AGENTS\.md/);

    await submit(tmux, "/greet Ada");
    await tmux.waitFor("ok-reloaded");
    const body = JSON.stringify(server.requests[0]?.body);
    expect(userTexts(server.requests[0]?.body).join("\n")).toContain("Say hello to Ada from the template.");
    expect(body).toContain("Always answer in haiku (from AGENTS.md).");
    expect(body).toContain("EXT-V2");
    expect(body).not.toContain("EXT-V1");
  });

  it("loads an extension added after a start with none: its command, prompt and tool-call hook work", async () => {
    const { tmux, server, home } = await startGyre(({ index }) =>
      index === 0
        ? { toolCalls: [{ name: "bash", arguments: { command: "echo should-not-run" } }] }
        : { text: "after-hook" },
    );
    await mkdir(join(home, "extensions"), { recursive: true });
    await writeFile(
      join(home, "extensions", "late.js"),
      `export default (api) => {
  api.addSystemPrompt("LATE-EXTENSION-PROMPT");
  api.registerCommand("late", { description: "Added later", handler: async (args, ctx) => ctx.ui.notify("late-command ran " + args) });
  api.on("tool_call", () => ({ block: true, reason: "blocked by the late extension" }));
};
`,
    );
    await submit(tmux, "/reload");
    const screen = await tmux.waitFor("Reloaded:");
    expect(screen.replace(/\s+/g, " ")).toContain(
      `extensions: reloaded 1 of 1 (+${join(home, "extensions", "late.js")})`,
    );
    await submit(tmux, "/late now");
    await tmux.waitFor("late-command ran now");
    await submit(tmux, "run it");
    await tmux.waitFor("after-hook");
    expect(JSON.stringify(server.requests[0]?.body)).toContain("LATE-EXTENSION-PROMPT");
    expect(JSON.stringify(server.requests[1]?.body)).toContain("blocked by the late extension");
    // The command line shows; its output (a line of its own) never does.
    expect(await tmux.capture()).not.toMatch(/^\s*should-not-run\s*$/m);
  });

  it("says so when nothing changed", async () => {
    const { tmux } = await startGyre(() => ({ text: "unused" }));
    await submit(tmux, "/reload");
    await tmux.waitFor("Reloaded; nothing changed.");
  });
});

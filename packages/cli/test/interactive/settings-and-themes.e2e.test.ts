import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { eventually, startGyre, stopGyres, submit } from "./gyre-in-tmux.js";

afterEach(stopGyres);

const reply = () => ({ text: "fine" });
const readSettings = async (home: string) =>
  JSON.parse(await readFile(join(home, "settings.json"), "utf8").catch(() => "{}")) as Record<string, unknown>;

async function writeTheme(home: string, name: string, theme: unknown): Promise<void> {
  await mkdir(join(home, "themes"), { recursive: true });
  await writeFile(join(home, "themes", `${name}.json`), typeof theme === "string" ? theme : JSON.stringify(theme));
}

describe("/settings editor in tmux", () => {
  it("changes the thinking level with Enter, → and ←, and writes each change to settings.json", async () => {
    const { tmux, home } = await startGyre(reply, {
      setup: async ({ home }) => writeFile(join(home, "settings.json"), '{ "maxCost": 5, "custom": "kept" }'),
    });
    await submit(tmux, "/settings");
    const screen = await tmux.waitFor("default model");
    // Settings left out of the file show the value gyre uses, not "(not set)".
    expect(screen).toMatch(/thinking\s+off \(default\)/);
    expect(screen).toMatch(/sandbox mode\s+workspace-write \(default\)/);
    expect(screen).toMatch(/approval\s+ask \(default\)/);
    await tmux.send(["Down"]);
    await tmux.send(["Enter"]);
    await tmux.waitFor("Saved thinking: low.");
    expect(await readSettings(home)).toEqual({ maxCost: 5, custom: "kept", thinking: "low" });
    await tmux.send(["Right"]);
    await tmux.waitFor("Saved thinking: medium.");
    expect((await readSettings(home)).thinking).toBe("medium");
    await tmux.send(["Left"]);
    await tmux.waitFor("Saved thinking: low.");
    await tmux.send(["Left"]);
    await tmux.waitFor("Saved thinking: off (default).");
    expect(await readSettings(home)).toEqual({ maxCost: 5, custom: "kept" });
    await tmux.send(["Escape"]);
    await tmux.waitFor((screen) => !screen.includes("default model"));
  });

  it("shows the rule a typed value breaks and leaves settings.json as it was", async () => {
    const original = '{ "thinking": "high" }\n';
    const { tmux, home } = await startGyre(reply, {
      setup: async ({ home }) => writeFile(join(home, "settings.json"), original),
    });
    await submit(tmux, "/settings");
    await tmux.waitFor("max turns");
    for (let step = 0; step < 6; step++) await tmux.send(["Down"]);
    await tmux.send(["Enter"]);
    await tmux.waitFor("Stop a run after this many model calls");
    await tmux.send(["--", "-3"], { literal: true });
    await tmux.send(["Enter"]);
    await tmux.waitFor("Not saved: /maxTurns must be a positive whole number (got -3)");
    expect(await readFile(join(home, "settings.json"), "utf8")).toBe(original);
    await tmux.send(["Enter"]);
    await tmux.type("40");
    await tmux.send(["Enter"]);
    await tmux.waitFor("Saved max turns: 40.");
    expect(await readSettings(home)).toEqual({ thinking: "high", maxTurns: 40 });
  });

  it("refuses to edit a settings file broken since start-up and does not overwrite it", async () => {
    const { tmux, home } = await startGyre(reply);
    await writeFile(join(home, "settings.json"), "{ not json");
    await submit(tmux, "/settings");
    await tmux.waitFor("is not a JSON object; fix or delete it first");
    expect(await readFile(join(home, "settings.json"), "utf8")).toBe("{ not json");
  });
});

describe("themes in tmux", () => {
  it("switches to a theme file from /settings and repaints in its colours at once", async () => {
    const { tmux, home } = await startGyre(reply, {
      setup: async ({ home }) => writeTheme(home, "mine", { base: "dark", colors: { cyan: "#ff0000" } }),
    });
    await submit(tmux, "/settings");
    await tmux.waitFor("default model");
    await tmux.send(["Down", "Down"]);
    await tmux.send(["Right"]);
    await tmux.waitFor("Saved theme: light.");
    await tmux.send(["Right"]);
    await tmux.waitFor("Saved theme: mine.");
    expect((await readSettings(home)).theme).toBe("mine");
    // The selected row's label is cyan, which this theme makes 24-bit red.
    await eventually(async () => ((await tmux.captureStyled()).includes("38;2;255;0;0") ? true : undefined), "red");
  });

  it("starts in a theme file's colours, and NO_COLOR still turns every colour off", async () => {
    const setup = async ({ home }: { home: string }) => {
      await writeTheme(home, "mine", { colors: { gray: "#00ff00" } });
      await writeFile(join(home, "settings.json"), '{ "theme": "mine" }');
    };
    const coloured = await startGyre(reply, { setup });
    expect(await coloured.tmux.captureStyled()).toContain("38;2;0;255;0");
    const plain = await startGyre(reply, { setup, env: { NO_COLOR: "1" } });
    const styled = await plain.tmux.captureStyled();
    expect(styled).not.toContain("38;2;0;255;0");
    expect(styled).not.toMatch(/\x1b\[(3[0-7]|9[0-7]|38;)/);
  });

  it("falls back to dark with a notice naming the problem when the theme file is invalid", async () => {
    const { tmux } = await startGyre(reply, {
      setup: async ({ home }) => {
        await writeTheme(home, "broken", { colors: { cyan: "not-a-colour", pink: 3 } });
        await writeFile(join(home, "settings.json"), '{ "theme": "broken" }');
      },
    });
    const screen = await tmux.waitFor('Theme "broken"');
    expect(screen.replace(/\s+/g, " ")).toContain('"colors.cyan" must be "#rrggbb"');
    expect(screen.replace(/\s+/g, " ")).toContain("using the dark theme");
    await submit(tmux, "/settings");
    await tmux.waitFor("default model");
    expect(await tmux.captureStyled()).toContain("\x1b[36m");
  });
});

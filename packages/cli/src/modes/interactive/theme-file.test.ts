import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DARK_PALETTE } from "./palette.js";
import { BUILT_IN_THEMES, listThemes, loadTheme, parseThemeText } from "./theme-file.js";

async function homeWithThemes(files: Record<string, string>): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), "gyre-themes-"));
  await mkdir(join(home, "themes"));
  for (const [name, text] of Object.entries(files)) await writeFile(join(home, "themes", name), text);
  return home;
}

describe("theme files", () => {
  it("turns hex, 256-colour and basic names into SGR parameters over the base theme", () => {
    const parsed = parseThemeText(
      JSON.stringify({ base: "light", colors: { red: "#ff0080", gray: 244, cyan: "brightCyan" } }),
    );
    expect(parsed).toEqual({
      ok: true,
      palette: { ...BUILT_IN_THEMES.light, red: "38;2;255;0;128", gray: "38;5;244", cyan: "96" },
    });
  });

  it("lists every problem of a theme at once", () => {
    const parsed = parseThemeText(JSON.stringify({ base: "blue", colors: { pink: 1, red: 300 }, extra: true }));
    expect(parsed.ok).toBe(false);
    const error = parsed.ok ? "" : parsed.error;
    for (const part of ['"extra"', '"base"', '"colors.pink"', '"colors.red"']) expect(error).toContain(part);
  });

  it("loads a theme file by name and falls back to dark with the reason when it is missing or broken", async () => {
    const home = await homeWithThemes({ "good.json": '{"colors":{"blue":12}}', "bad.json": "{ nope" });
    expect((await loadTheme("good", home)).palette.blue).toBe("38;5;12");
    expect(await loadTheme(undefined, home)).toEqual({ name: "dark", palette: DARK_PALETTE });
    const bad = await loadTheme("bad", home);
    expect(bad.palette).toBe(DARK_PALETTE);
    expect(bad.problem).toMatch(/^Theme "bad" in .*bad\.json is invalid: it is not valid JSON/);
    expect((await loadTheme("none", home)).problem).toContain("is not built in (dark, light)");
    expect((await loadTheme("../escape", home)).problem).toContain("is not a valid theme name");
  });

  it("lists the built-in themes then the theme files", async () => {
    const home = await homeWithThemes({ "zed.json": "{}", "alpha.json": "{}", "notes.txt": "" });
    expect(await listThemes(home)).toEqual(["dark", "light", "alpha", "zed"]);
  });

  it("loads and lists a theme an installed package brings, the user's own file winning by name", async () => {
    const home = await homeWithThemes({ "shared.json": '{"colors":{"blue":1}}' });
    const pkg = await mkdtemp(join(tmpdir(), "gyre-theme-package-"));
    await mkdir(join(pkg, "themes"));
    await writeFile(join(pkg, "themes", "ocean.json"), '{"colors":{"blue":33}}');
    await writeFile(join(pkg, "themes", "shared.json"), '{"colors":{"blue":99}}');
    const themes = [join(pkg, "themes")];
    expect((await loadTheme("ocean", home, themes)).palette.blue).toBe("38;5;33");
    expect((await loadTheme("shared", home, themes)).palette.blue).toBe("38;5;1");
    expect((await loadTheme("ocean", home)).problem).toContain("is not built in");
    expect(await listThemes(home, themes)).toEqual(["dark", "light", "ocean", "shared"]);
  });
});

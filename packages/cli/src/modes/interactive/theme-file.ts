/**
 * Themes by name: `dark` and `light` built in, anything else read from
 * `$GYRE_HOME/themes/<name>.json`. A theme file names a base theme and overrides some colours:
 *
 *     { "base": "light", "colors": { "cyan": "#0087af", "gray": 244, "red": "brightRed" } }
 *
 * A colour is "#rrggbb" (24-bit), a number 0–255 (the 256-colour table) or one of the 16 basic
 * names. A theme that cannot be used never stops the UI: the result says why and holds `dark`.
 */
import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { pathExists } from "../../core/path-exists.js";
import { COLOUR_NAMES, type ColourName, DARK_PALETTE, type Palette } from "./palette.js";

/** Tuned for a light background: yellow and cyan darkened, gray a mid gray that reads on white. */
const LIGHT_PALETTE: Palette = {
  red: "38;5;124",
  green: "38;5;28",
  yellow: "38;5;130",
  blue: "38;5;25",
  magenta: "38;5;90",
  cyan: "38;5;30",
  gray: "38;5;242",
};

/** The themes every gyre has, by name. */
export const BUILT_IN_THEMES: Readonly<Record<string, Palette>> = { dark: DARK_PALETTE, light: LIGHT_PALETTE };

const BASIC_COLOURS = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"];

export type LoadedTheme = {
  name: string;
  palette: Palette;
  /** Why the theme asked for is not used (the palette is then `dark`). */
  problem?: string;
};

/** Theme names a file may have: no path separators or dots, so a name never leaves the themes folder. */
const THEME_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The theme files installed packages bring, by name: `packageThemes` holds `<name>.json` files and
 * folders of them. The user's own `$GYRE_HOME/themes` wins over a package's of the same name.
 */
export async function packageThemeFiles(packageThemes: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const path of packageThemes) {
    const names = path.endsWith(".json")
      ? [path]
      : (await readdir(path).catch(() => [] as string[])).map((n) => join(path, n));
    for (const file of names) {
      const name = basename(file, ".json");
      if (file.endsWith(".json") && THEME_NAME.test(name) && !found.has(name)) found.set(name, file);
    }
  }
  return found;
}

/** Loads the theme `name` (default `dark`); never throws, see `LoadedTheme.problem`. */
export async function loadTheme(
  name: string | undefined,
  gyreHome: string,
  packageThemes: readonly string[] = [],
): Promise<LoadedTheme> {
  const wanted = name ?? "dark";
  const builtIn = BUILT_IN_THEMES[wanted];
  if (builtIn) return { name: wanted, palette: builtIn };
  const fallback = (problem: string): LoadedTheme => ({
    name: "dark",
    palette: DARK_PALETTE,
    problem: `Theme "${wanted}" ${problem}; using the dark theme.`,
  });
  if (!THEME_NAME.test(wanted)) return fallback("is not a valid theme name (letters, digits, - and _)");
  const own = join(gyreHome, "themes", `${wanted}.json`);
  const file = (await pathExists(own)) ? own : ((await packageThemeFiles(packageThemes)).get(wanted) ?? own);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return fallback(
      missing ? `is not built in (dark, light) and ${file} does not exist` : `cannot be read from ${file}`,
    );
  }
  const parsed = parseThemeText(text);
  return parsed.ok ? { name: wanted, palette: parsed.palette } : fallback(`in ${file} is invalid: ${parsed.error}`);
}

/** Parses a theme file's text; every problem is listed, so one fix is enough. */
export function parseThemeText(text: string): { ok: true; palette: Palette } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    return { ok: false, error: `it is not valid JSON (${(error as Error).message})` };
  }
  if (!isObject(value)) return { ok: false, error: "it must contain a JSON object" };
  const problems: string[] = [];
  for (const key of Object.keys(value))
    if (key !== "base" && key !== "colors" && key !== "name")
      problems.push(`"${key}" is not a theme field (use base, colors)`);
  const base = value.base ?? "dark";
  const basePalette = typeof base === "string" ? BUILT_IN_THEMES[base] : undefined;
  if (!basePalette) problems.push(`"base" must be dark or light`);
  const colours = value.colors ?? {};
  const palette: Palette = { ...(basePalette ?? DARK_PALETTE) };
  if (!isObject(colours)) problems.push(`"colors" must be an object`);
  else
    for (const [key, colour] of Object.entries(colours)) {
      if (!(COLOUR_NAMES as readonly string[]).includes(key)) {
        problems.push(`"colors.${key}" is not a colour name (use ${COLOUR_NAMES.join(", ")})`);
        continue;
      }
      const sgr = toSgr(colour);
      if (sgr === undefined)
        problems.push(`"colors.${key}" must be "#rrggbb", a number 0-255 or a basic colour name such as "brightBlue"`);
      else palette[key as ColourName] = sgr;
    }
  return problems.length > 0 ? { ok: false, error: problems.join("; ") } : { ok: true, palette };
}

/** SGR foreground parameters for a colour value, or undefined when it is not one. */
function toSgr(colour: unknown): string | undefined {
  if (typeof colour === "number")
    return Number.isInteger(colour) && colour >= 0 && colour <= 255 ? `38;5;${colour}` : undefined;
  if (typeof colour !== "string") return undefined;
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour);
  if (hex)
    return `38;2;${hex
      .slice(1)
      .map((part) => Number.parseInt(part, 16))
      .join(";")}`;
  const bright = colour.startsWith("bright");
  const basic = BASIC_COLOURS.indexOf(bright ? colour.slice(6).toLowerCase() : colour);
  if (basic < 0) return undefined;
  return String((bright ? 90 : 30) + basic);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/** Theme names to choose from: the built-in ones, then the files in `$GYRE_HOME/themes`. */
export async function listThemes(gyreHome: string, packageThemes: readonly string[] = []): Promise<string[]> {
  const names = await readdir(join(gyreHome, "themes")).catch(() => [] as string[]);
  const own = names.filter((name) => name.endsWith(".json")).map((name) => name.slice(0, -".json".length));
  const fromPackages = [...(await packageThemeFiles(packageThemes)).keys()];
  const fromFiles = [...new Set([...own, ...fromPackages])]
    .filter((name) => THEME_NAME.test(name) && !(name in BUILT_IN_THEMES))
    .sort();
  return [...Object.keys(BUILT_IN_THEMES), ...fromFiles];
}

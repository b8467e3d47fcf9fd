/**
 * The colours the UI paints with, as SGR "set foreground" parameters. One palette is current at a
 * time; `style` (theme.ts) and the code highlighter look it up on every call, so switching the
 * theme recolours everything rendered from then on.
 */
import { colourEnabled } from "./colour-support.js";

/** The colour names every theme defines; components use only these. */
export const COLOUR_NAMES = ["red", "green", "yellow", "blue", "magenta", "cyan", "gray"] as const;
export type ColourName = (typeof COLOUR_NAMES)[number];

/** SGR foreground parameters per colour ("31", "38;5;130", "38;2;255;0;0"). */
export type Palette = Record<ColourName, string>;

/** The 16-colour palette: the user's terminal theme decides what these look like. */
export const DARK_PALETTE: Palette = {
  red: "31",
  green: "32",
  yellow: "33",
  blue: "34",
  magenta: "35",
  cyan: "36",
  gray: "90",
};

let current: Palette = DARK_PALETTE;
const useColour = colourEnabled();

/** Makes `palette` the one painted with from now on. */
export function setPalette(palette: Palette): void {
  current = palette;
}

/** Whether colours are painted at all (NO_COLOR / FORCE_COLOR=0 turn them off, whatever the theme). */
export function coloursOn(): boolean {
  return useColour;
}

/** `text` in the current palette's `name`, or plain when colours are off. */
export function paint(name: ColourName, text: string): string {
  return useColour ? `\x1b[${current[name]}m${text}\x1b[39m` : text;
}

import type { TUI } from "@mariozechner/pi-tui";

/** The private steps of pi-tui 0.73's `TUI.doRender` that touch every line of every frame. */
type RenderInternals = {
  applyLineResets(lines: string[]): string[];
  collectKittyImageIds(lines: string[]): Set<number>;
};

const KITTY_IMAGE = "\x1b_G";

/**
 * pi-tui post-processes every line of the whole conversation on every frame (a reset suffix, an
 * image check, then a string comparison with the last frame), so a frame's cost grows with the
 * session's length even when only the last lines changed. This memoises that step by position:
 * a line equal to the one at the same row last frame gets last frame's processed string, which
 * also makes the renderer's comparison a pointer check. The output is byte for byte what pi-tui
 * produces; when the internals are not there (another pi-tui version) nothing is changed.
 */
export function installLineResetCache(tui: TUI): boolean {
  const internals = tui as unknown as RenderInternals;
  const applyLineResets = internals.applyLineResets;
  const collectKittyImageIds = internals.collectKittyImageIds;
  if (typeof applyLineResets !== "function" || typeof collectKittyImageIds !== "function") return false;
  let previousInput: string[] = [];
  let previousOutput: string[] = [];
  let previousImage: boolean[] = [];
  let imageLines = 0;
  internals.applyLineResets = (lines) => {
    const input = lines.slice();
    const image: boolean[] = new Array(lines.length);
    imageLines = 0;
    for (let index = 0; index < lines.length; index++) {
      const line = lines[index] as string;
      if (line === previousInput[index]) {
        lines[index] = previousOutput[index] as string;
        image[index] = previousImage[index] === true;
      } else {
        const output = applyLineResets.call(tui, [line])[0] as string;
        lines[index] = output;
        image[index] = output.includes(KITTY_IMAGE);
      }
      if (image[index]) imageLines++;
    }
    previousInput = input;
    previousOutput = lines.slice();
    previousImage = image;
    return lines;
  };
  // Without an image on screen there are no image ids to collect; skips one more pass per frame.
  internals.collectKittyImageIds = (lines) => (imageLines === 0 ? new Set() : collectKittyImageIds.call(tui, lines));
  return true;
}

/**
 * Notices a model stuck in a loop while it streams: the end of its text is one passage repeated
 * over and over (a sentence, a paragraph, a line of code). Checked once per KB of new text, on a
 * bounded window, so a long honest answer costs little. The passage is found from the last
 * characters' previous occurrence (the shortest period), then verified character by character.
 */

export const DEFAULT_REPETITION_MIN_CHARS = 8000;
export const DEFAULT_REPETITION_MIN_REPEATS = 8;

const checkEveryChars = 1024;
const needleChars = 32;
const windowChars = 128 * 1024;

export type RepetitionGuard = {
  /** Adds streamed text; returns a sentence once the tail is a repeating loop, else undefined. */
  push(delta: string): string | undefined;
};

export function createRepetitionGuard(options: { minChars?: number; minRepeats?: number } = {}): RepetitionGuard {
  const minChars = options.minChars ?? DEFAULT_REPETITION_MIN_CHARS;
  const minRepeats = options.minRepeats ?? DEFAULT_REPETITION_MIN_REPEATS;
  let text = "";
  let total = 0;
  let sinceCheck = 0;
  return {
    push(delta) {
      text += delta;
      total += delta.length;
      sinceCheck += delta.length;
      // Only the window is kept: a loop longer than it is caught long before it fills it.
      if (text.length > windowChars * 2) text = text.slice(-windowChars);
      if (sinceCheck < checkEveryChars || text.length < minChars) return undefined;
      sinceCheck = 0;
      const loop = findRepeatingTail(text.slice(-windowChars), minChars, minRepeats);
      if (!loop) return undefined;
      const sample = text.slice(-loop.period).trim().replace(/\s+/g, " ");
      const shown = sample.length > 80 ? `${sample.slice(0, 80)}…` : sample;
      return `The model repeated the same ${loop.period}-character passage ${Math.floor(loop.length / loop.period)} times (${Math.round(loop.length / 1024)} KB of ${Math.round(total / 1024)} KB) and was stopped: "${shown}". Ask again, perhaps rephrased, or start a new session if it keeps looping.`;
    },
  };
}

/** The shortest period of the text's tail and how long the periodic tail is, when it is a loop. */
export function findRepeatingTail(
  text: string,
  minChars: number,
  minRepeats: number,
): { period: number; length: number } | undefined {
  if (text.length < Math.max(minChars, needleChars * 2)) return undefined;
  const needle = text.slice(-needleChars);
  const previous = text.lastIndexOf(needle, text.length - needleChars - 1);
  if (previous < 0) return undefined;
  const period = text.length - needleChars - previous;
  if (period * minRepeats > text.length) return undefined;
  let index = text.length - 1;
  while (index - period >= 0 && text.charCodeAt(index) === text.charCodeAt(index - period)) index--;
  const length = text.length - 1 - index + period;
  return length >= minChars && length >= period * minRepeats ? { period, length } : undefined;
}

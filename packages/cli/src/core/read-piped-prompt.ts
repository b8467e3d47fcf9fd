import type { Readable, Writable } from "node:stream";

/** The most of a piped prompt that is accepted: more is refused, never sent to a model whole. */
export const MAX_PIPED_PROMPT_BYTES = 10 * 1024 * 1024;
/** How long stdin may stay silent before the user hears why nothing happens. */
const SILENCE_HINT_MS = 1_000;

/** A piped prompt, or why it was refused. */
export type PipedPrompt = { ok: true; text: string } | { ok: false; error: string };

/**
 * Reads a prompt piped on stdin to its end, holding at most `maxBytes`: a larger input is
 * drained (so the writer is not left blocked) but kept no further, and refused with a sentence.
 * When the pipe stays silent for a second, `hints` is told once that gyre is waiting for EOF.
 */
export async function readPipedPrompt(
  input: Readable,
  hints: Writable,
  maxBytes = MAX_PIPED_PROMPT_BYTES,
): Promise<PipedPrompt> {
  const chunks: Buffer[] = [];
  let size = 0;
  let heard = false;
  const timer = setTimeout(() => {
    if (!heard)
      hints.write(
        "gyre: waiting for the prompt on stdin (it is a pipe that is open but silent); close it (Ctrl-D), or run gyre with </dev/null.\n",
      );
  }, SILENCE_HINT_MS);
  timer.unref();
  try {
    for await (const chunk of input) {
      heard = true;
      const bytes = chunk as Buffer;
      size += bytes.length;
      if (size <= maxBytes) chunks.push(bytes);
      else chunks.length = 0;
    }
  } finally {
    clearTimeout(timer);
  }
  if (size > maxBytes) {
    return {
      ok: false,
      error: `The prompt piped on stdin is ${size} bytes, over the ${maxBytes}-byte limit; save it to a file in the workspace and ask gyre to read it instead.`,
    };
  }
  return { ok: true, text: Buffer.concat(chunks).toString("utf8") };
}

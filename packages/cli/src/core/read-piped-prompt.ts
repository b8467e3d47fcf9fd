import type { Readable, Writable } from "node:stream";

/** The most of a piped prompt that is accepted: more is refused, never sent to a model whole. */
export const MAX_PIPED_PROMPT_BYTES = 10 * 1024 * 1024;
/** How long stdin may stay silent before the user hears why nothing happens. */
const SILENCE_HINT_MS = 1_000;

/** A piped prompt, or why it was refused. `ignored`: the pipe stayed silent and was given up on. */
export type PipedPrompt = { ok: true; text: string; ignored?: boolean } | { ok: false; error: string };

export type ReadPipedPromptOptions = {
  maxBytes?: number;
  /**
   * With a prompt argument, how long to wait for stdin's first byte before going on without it
   * (docs/cli.md, "Standard input"). Once a byte has arrived the input is read to its end.
   * Undefined: wait for the end, however long (the prompt can only come from stdin).
   */
  firstByteTimeoutMs?: number;
};

/**
 * Reads a prompt piped on stdin to its end, holding at most `maxBytes`: a larger input is
 * drained (so the writer is not left blocked) but kept no further, and refused with a sentence.
 * With `firstByteTimeoutMs`, a pipe that sends nothing in that time is let go (the stream is
 * destroyed, so it cannot keep the process alive) and `hints` is told so in one line; without
 * it, a pipe silent for a second gets a hint that gyre is waiting for EOF.
 */
export function readPipedPrompt(
  input: Readable,
  hints: Writable,
  options: ReadPipedPromptOptions = {},
): Promise<PipedPrompt> {
  const maxBytes = options.maxBytes ?? MAX_PIPED_PROMPT_BYTES;
  const giveUp = options.firstByteTimeoutMs;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let heard = false;
    const finish = (result: PipedPrompt) => {
      clearTimeout(timer);
      input.off("data", onData);
      input.off("end", onEnd);
      input.off("error", onError);
      resolve(result);
    };
    const onData = (chunk: Buffer | string) => {
      heard = true;
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size <= maxBytes) chunks.push(bytes);
      else chunks.length = 0;
    };
    const onEnd = () => {
      if (size > maxBytes) {
        finish({
          ok: false,
          error: `The prompt piped on stdin is ${size} bytes, over the ${maxBytes}-byte limit; save it to a file in the workspace and ask gyre to read it instead.`,
        });
      } else finish({ ok: true, text: Buffer.concat(chunks).toString("utf8") });
    };
    const onError = (error: Error) => finish({ ok: false, error: `Reading stdin failed: ${error.message}.` });
    const onSilence = () => {
      if (heard) return;
      if (giveUp === undefined) {
        hints.write(
          "gyre: waiting for the prompt on stdin (it is a pipe that is open but silent); close it (Ctrl-D), or run gyre with </dev/null.\n",
        );
        return;
      }
      finish({ ok: true, text: "", ignored: true });
      input.destroy();
      hints.write(
        `gyre: stdin sent nothing for ${giveUp / 1000} s, so it is ignored and only the prompt argument is used; run gyre with </dev/null to skip the wait.\n`,
      );
    };
    const timer = setTimeout(onSilence, giveUp ?? SILENCE_HINT_MS);
    timer.unref();
    input.on("data", onData);
    input.once("end", onEnd);
    input.once("error", onError);
  });
}

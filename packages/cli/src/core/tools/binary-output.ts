/**
 * Command output that is not text (`cat /bin/ls`): decoded as UTF-8 it becomes U+FFFD garbage
 * that costs tokens and tells the model nothing. It is marked and summarised instead.
 */

/** Share of replacement and control characters above which decoded output counts as binary. */
const BINARY_SHARE = 0.1;
const MAX_STRINGS_CHARS = 2_000;

/** Whether decoded output looks binary: a NUL, or many U+FFFD / control characters. */
export function looksLikeBinaryText(text: string): boolean {
  if (text.length === 0) return false;
  if (text.includes("\u0000")) return true;
  if (text.length < 32) return false;
  let odd = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0xfffd || (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d)) odd++;
  }
  return odd / text.length > BINARY_SHARE;
}

/**
 * A summary of binary output for the model: that it is binary, its size, and its printable
 * strings (runs of four or more printable ASCII characters, like `strings`), bounded.
 */
export function summariseBinaryOutput(text: string, totalBytes: number): string {
  const strings = (text.match(/[\x20-\x7e\t]{4,}/g) ?? []).join("\n");
  const shown = strings.length > MAX_STRINGS_CHARS ? `${strings.slice(0, MAX_STRINGS_CHARS)}…` : strings;
  return (
    `[binary output (${totalBytes} bytes, not text): not shown. Pipe it through xxd, od or strings, or redirect it to a file.]` +
    (shown === "" ? "" : `\n[printable strings in the last part of it:]\n${shown}`)
  );
}

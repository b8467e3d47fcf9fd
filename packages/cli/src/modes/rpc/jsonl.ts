import type { Readable, Writable } from "node:stream";

/**
 * Reads newline-delimited records from `input`, splitting on "\n" only: never `readline`,
 * which also splits on "\r" and U+2028/U+2029 that are legal inside JSON strings. A trailing
 * "\r" is dropped so CRLF clients work. Calls `onEnd` once at EOF (after a last unterminated line).
 */
export function readLines(input: Readable, onLine: (line: string) => void, onEnd: () => void): void {
  let buffer = "";
  input.setEncoding("utf8");
  input.on("data", (chunk: string) => {
    buffer += chunk;
    let newline = buffer.indexOf("\n");
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
      if (trimmed.trim() !== "") onLine(trimmed);
      newline = buffer.indexOf("\n");
    }
  });
  input.on("end", () => {
    if (buffer.trim() !== "") onLine(buffer.endsWith("\r") ? buffer.slice(0, -1) : buffer);
    buffer = "";
    onEnd();
  });
}

/** Writes one JSON record and a newline. */
export function writeJsonLine(output: Writable, value: unknown): void {
  output.write(`${JSON.stringify(value)}\n`);
}

import type { Readable, Writable } from "node:stream";
import { createRedactor, type Redactor } from "../../core/session/redact-secrets.js";

/** The longest command line accepted (bytes); longer lines are skipped and reported. */
export const MAX_LINE_BYTES = 128 * 1024 * 1024;

export type ReadLinesOptions = {
  /** Default `MAX_LINE_BYTES`. */
  maxLineBytes?: number;
  /** Told of each line skipped for its size (its byte count so far, at least the limit). */
  onTooLong?: (bytes: number) => void;
  /** While this stream's buffer is full, `input` is paused: a stalled reader stops the commands. */
  output?: Writable;
};

/**
 * Reads newline-delimited records from `input`, splitting on "\n" only: never `readline`,
 * which also splits on "\r" and U+2028/U+2029 that are legal inside JSON strings. A trailing
 * "\r" is dropped so CRLF clients work. Calls `onEnd` once at EOF (after a last unterminated line).
 * Linear in the input: each chunk is searched once and a long line is joined once, as bytes
 * (a "\n" byte never occurs inside a UTF-8 sequence). A line over the limit is dropped as it
 * streams in, so memory stays bounded by the limit.
 */
export function readLines(
  input: Readable,
  onLine: (line: string) => void,
  onEnd: () => void,
  options: ReadLinesOptions = {},
): void {
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  let parts: Buffer[] = [];
  let length = 0;
  let tooLong = false;
  const emit = (last: Buffer) => {
    if (tooLong) options.onTooLong?.(length + last.length);
    else {
      const text = (parts.length === 0 ? last : Buffer.concat([...parts, last])).toString("utf8");
      const line = text.endsWith("\r") ? text.slice(0, -1) : text;
      if (line.trim() !== "") onLine(line);
    }
    parts = [];
    length = 0;
    tooLong = false;
  };
  input.on("data", (chunk: Buffer | string) => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (let newline = bytes.indexOf(0x0a); newline >= 0; newline = bytes.indexOf(0x0a, start)) {
      emit(bytes.subarray(start, newline));
      start = newline + 1;
    }
    const rest = bytes.subarray(start);
    if (rest.length === 0) return;
    length += rest.length;
    if (length > maxLineBytes) tooLong = true;
    if (tooLong) parts = [];
    else parts.push(rest);
    const output = options.output;
    if (output?.writableNeedDrain && !input.isPaused()) {
      input.pause();
      output.once("drain", () => input.resume());
    }
  });
  input.on("end", () => {
    if (length > 0) emit(Buffer.alloc(0));
    onEnd();
  });
}

let stdoutRedactor: Redactor | undefined;

/**
 * Writes one JSON record and a newline, with secrets redacted (keys held in the environment,
 * `--api-key`, known key shapes): this channel is often logged. Returns `write`'s answer, false
 * when the stream's buffer is full (see `ReadLinesOptions.output`).
 */
export function writeJsonLine(output: Writable, value: unknown): boolean {
  stdoutRedactor ??= createRedactor({ env: process.env });
  return output.write(`${stdoutRedactor(JSON.stringify(value))}\n`);
}

/** Writes one JSON record and a newline as it is (a client's own commands are not redacted). */
export function writeRawJsonLine(output: Writable, value: unknown): boolean {
  return output.write(`${JSON.stringify(value)}\n`);
}

/** The error response for a command line skipped for its size. */
export function tooLongResponse(bytes: number) {
  return {
    command: "parse",
    success: false as const,
    error: `The command line is ${bytes} bytes, over the ${MAX_LINE_BYTES}-byte limit; it was skipped. Send large content as a file path instead.`,
  };
}

/**
 * Streams lines out of a file without ever holding more than the requested window (plus one
 * chunk) in memory; also counts the file's total lines by scanning bytes for newlines.
 */
import { utf8SafeEnd } from "./truncate.js";

export type ReadLinesOptions = {
  /** 1-based first line to return. */
  offset: number;
  maxLines: number;
  maxBytes: number;
  signal?: AbortSignal;
};

export type ReadLinesResult = {
  lines: string[];
  /** Lines in the whole file (a final line without newline counts). */
  totalLines: number;
  /** Which limit stopped collection before the end of the file. */
  stoppedBy: "lines" | "bytes" | undefined;
  /** Set when the first requested line alone exceeded `maxBytes` and was cut. */
  longLine: { lineNumber: number; bytes: number } | undefined;
};

const NEWLINE = 0x0a;
const decoder = new TextDecoder("utf-8");

/** Collects lines `offset…` within the limits; reads on only to count lines, keeping nothing. */
export async function readLines(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  options: ReadLinesOptions,
): Promise<ReadLinesResult> {
  const { offset, maxLines, maxBytes, signal } = options;
  const lines: string[] = [];
  let outputBytes = 0;
  let collecting = true;
  let stoppedBy: ReadLinesResult["stoppedBy"];
  let longLine: ReadLinesResult["longLine"];
  let lineNumber = 1;
  let newlines = 0;
  let lastByte = NEWLINE;
  // Bytes of the current line, capped at maxBytes + 1 so one huge line cannot fill memory.
  let parts: Uint8Array[] = [];
  let keptBytes = 0;
  let lineBytes = 0;

  const finishLine = () => {
    if (!collecting || lineNumber < offset) return;
    const joined = Buffer.concat(parts, keptBytes);
    parts = [];
    keptBytes = 0;
    if (lines.length === 0 && lineBytes > maxBytes) {
      const end = utf8SafeEnd(joined, maxBytes);
      lines.push(stripLine(decoder.decode(joined.subarray(0, end)), lineNumber));
      longLine = { lineNumber, bytes: lineBytes };
      collecting = false;
      stoppedBy = "bytes";
      return;
    }
    const size = lineBytes + (lines.length > 0 ? 1 : 0);
    if (outputBytes + size > maxBytes) {
      collecting = false;
      stoppedBy = "bytes";
      return;
    }
    outputBytes += size;
    lines.push(stripLine(decoder.decode(joined), lineNumber));
    if (lines.length >= maxLines) {
      collecting = false;
      stoppedBy = "lines";
    }
  };

  const keep = (chunk: Uint8Array, start: number, end: number) => {
    lineBytes += end - start;
    if (!collecting || lineNumber < offset || keptBytes > maxBytes) return;
    const take = Math.min(end, start + maxBytes + 1 - keptBytes);
    parts.push(chunk.subarray(start, take));
    keptBytes += take - start;
  };

  for await (const chunk of chunks) {
    signal?.throwIfAborted();
    if (chunk.length === 0) continue;
    lastByte = chunk[chunk.length - 1] ?? lastByte;
    let position = 0;
    while (position < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, position);
      if (newline === -1) {
        keep(chunk, position, chunk.length);
        break;
      }
      newlines++;
      keep(chunk, position, newline);
      finishLine();
      lineNumber++;
      lineBytes = 0;
      position = newline + 1;
      // Once collection stopped, only counting remains: the tight loop above does just that.
    }
  }
  if (lastByte !== NEWLINE) finishLine();
  const totalLines = newlines + (lastByte !== NEWLINE ? 1 : 0);
  return { lines, totalLines, stoppedBy, longLine };
}

/** Drops the line's CR (CRLF files) and, on line 1, a UTF-8 byte-order mark. */
function stripLine(line: string, lineNumber: number): string {
  let text = line.endsWith("\r") ? line.slice(0, -1) : line;
  if (lineNumber === 1 && text.startsWith("\uFEFF")) text = text.slice(1);
  return text;
}

/**
 * Output limits shared by the tools: what the model sees is capped by lines and bytes, and every
 * cut comes with a notice that names the next step.
 */

export const DEFAULT_MAX_LINES = 2000;
export const DEFAULT_MAX_BYTES = 50 * 1024;
/** grep and find cut each line of output at this many characters. */
export const MAX_LINE_CHARS = 500;

export type TruncateOptions = { maxLines?: number; maxBytes?: number };

/** The result of keeping the head or the tail of a text. */
export type Truncation = {
  text: string;
  truncated: boolean;
  /** Which limit cut the text, if any. */
  limit: "lines" | "bytes" | undefined;
  totalLines: number;
  keptLines: number;
};

/** A byte count for people and models: "812 B", "50 KB", "3.2 MB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Keeps whole lines from the start of `text` within both limits. */
export function truncateHead(text: string, options: TruncateOptions = {}): Truncation {
  return keepLines(text, { ...options, from: "start" });
}

/** Keeps whole lines from the end of `text` within both limits (bash output: the end matters). */
export function truncateTail(text: string, options: TruncateOptions = {}): Truncation {
  return keepLines(text, { ...options, from: "end" });
}

/** Keeps as many whole lines as fit both limits, counting from the start or from the end of `text`. */
function keepLines(text: string, options: TruncateOptions & { from: "start" | "end" }): Truncation {
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const lines = text.split("\n");
  let bytes = 0;
  let kept = 0;
  let limit: Truncation["limit"];
  while (kept < lines.length) {
    if (kept >= maxLines) {
      limit = "lines";
      break;
    }
    const line = lines[options.from === "start" ? kept : lines.length - 1 - kept] ?? "";
    const size = Buffer.byteLength(line, "utf8") + (kept > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      limit = "bytes";
      break;
    }
    bytes += size;
    kept++;
  }
  const truncated = limit !== undefined;
  const keptText = options.from === "start" ? lines.slice(0, kept) : lines.slice(lines.length - kept);
  return {
    text: truncated ? keptText.join("\n") : text,
    truncated,
    limit,
    totalLines: lines.length,
    keptLines: kept,
  };
}

/** Cuts `line` at `maxChars` characters, marking the cut. Returns whether it was cut. */
export function cutLine(line: string, maxChars = MAX_LINE_CHARS): { text: string; cut: boolean } {
  if (line.length <= maxChars) return { text: line, cut: false };
  return { text: `${line.slice(0, maxChars)}… [line cut]`, cut: true };
}

/** The largest end ≤ `end` that does not split a UTF-8 sequence in `bytes`. */
export function utf8SafeEnd(bytes: Uint8Array, end: number): number {
  let index = Math.min(end, bytes.length);
  if (index === bytes.length) return index;
  // Back off over continuation bytes (10xxxxxx) so the cut lands on a character start.
  while (index > 0 && ((bytes[index] ?? 0) & 0xc0) === 0x80) index--;
  return index;
}

/** The smallest start ≥ `start` that does not begin inside a UTF-8 sequence in `bytes`. */
export function utf8SafeStart(bytes: Uint8Array, start: number): number {
  let index = Math.max(0, start);
  while (index < bytes.length && ((bytes[index] ?? 0) & 0xc0) === 0x80) index++;
  return index;
}

/**
 * A server's stderr, kept bounded: a server that floods stderr costs at most `maxBytes` of memory
 * (Claude Code once kept up to 64 MB per server). The last lines are what a user needs to see
 * why a server failed (`gyre mcp list --verbose`, the TUI).
 */

export type StderrRing = {
  /** Adds a chunk of output; partial lines are joined with the next chunk. */
  push(chunk: string): void;
  /** The last `count` complete lines (and the unfinished one), oldest first. */
  tail(count?: number): string[];
  /** How many bytes were dropped to keep within the bound. */
  readonly droppedBytes: number;
};

/** Each line is cut at this many characters: one huge line must not evict every other. */
const maxLineChars = 1000;

/** A ring of whole lines holding at most `maxLines` lines and about `maxBytes` characters. */
export function createStderrRing(options: { maxLines?: number; maxBytes?: number } = {}): StderrRing {
  const maxLines = options.maxLines ?? 200;
  const maxBytes = options.maxBytes ?? 64 * 1024;
  const lines: string[] = [];
  let size = 0;
  let partial = "";
  let dropped = 0;
  const add = (line: string) => {
    const kept = line.length > maxLineChars ? `${line.slice(0, maxLineChars)}… (${line.length} chars)` : line;
    dropped += line.length - kept.length;
    lines.push(kept);
    size += kept.length;
    while (lines.length > maxLines || size > maxBytes) {
      const removed = lines.shift() ?? "";
      size -= removed.length;
      dropped += removed.length;
    }
  };
  return {
    push(chunk) {
      const parts = (partial + chunk).split("\n");
      partial = parts.pop() ?? "";
      if (partial.length > maxLineChars) {
        add(partial);
        partial = "";
      }
      for (const part of parts) add(part.replace(/\r$/, ""));
    },
    tail(count = 20) {
      const all = partial ? [...lines, partial] : lines;
      return all.slice(-count);
    },
    get droppedBytes() {
      return dropped;
    },
  };
}

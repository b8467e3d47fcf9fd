/**
 * Collects a command's output with bounded memory: everything is kept until it exceeds the
 * limits, then the full output goes to a private temp file and only a rolling tail stays in
 * memory. Writes to the file apply backpressure (`push` returns false) so a fast producer
 * cannot pile up buffers.
 */
import { randomBytes } from "node:crypto";
import { createWriteStream, unlinkSync, type WriteStream } from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { utf8SafeStart } from "./truncate.js";

export type OutputCollectorOptions = {
  maxLines: number;
  maxBytes: number;
  /** Where the full-output file goes. Default: the OS temp directory. */
  tempDir?: string;
  /** The file keeps at most this many bytes, the first ones (a background shell's log). Default: no limit. */
  maxFileBytes?: number;
};

export type CollectedOutput = {
  /** The last bytes of output (at least `maxBytes` of them when there were that many), decoded. */
  tail: string;
  totalBytes: number;
  /** Lines of output; undefined past COUNT_LINES_UP_TO bytes (counting 300 MB would cost a second). */
  totalLines: number | undefined;
  /** The 0600 file holding the full output, when it exceeded the limits. */
  fullOutputPath: string | undefined;
  /** Why the full output could not be saved, if it could not. */
  fullOutputError: string | undefined;
};

export type OutputCollector = {
  /** Takes a chunk; false means "pause the producer until `onDrain`". */
  push(chunk: Buffer): boolean;
  onDrain(listener: () => void): void;
  /** The decoded tail so far (for progress updates). */
  peek(): string;
  /**
   * The output from byte `from` on, as far as memory still holds it (background shells read in
   * pieces): `skippedBytes` counts the bytes from `from` that only the full-output file has now.
   */
  readFrom(from: number): { text: string; skippedBytes: number; totalBytes: number };
  /** The full-output file, once the output outgrew the limits. */
  fullOutputPath(): string | undefined;
  /** Whether the file stopped at `maxFileBytes` (later output is only in the tail). */
  fileFull(): boolean;
  /** Flushes and closes the file; call once, after the last push. */
  finish(): Promise<CollectedOutput>;
};

/**
 * Spill files (up to gigabytes each) live as long as the process: the model may read them during
 * the session, and none outlives it. The exit hook must be synchronous; it runs once.
 */
const spillFiles = new Set<string>();

function removeAtExit(path: string): void {
  if (spillFiles.size === 0)
    process.once("exit", () => {
      for (const file of spillFiles) {
        try {
          unlinkSync(file);
        } catch {
          // already gone
        }
      }
    });
  spillFiles.add(path);
}

/** Output beyond this many bytes is not line-counted. */
const COUNT_LINES_UP_TO = 16 * 1024 * 1024;

/** A plain loop: about 4× faster than repeated indexOf when lines are short. */
function countNewlines(chunk: Buffer): number {
  let count = 0;
  for (let index = 0; index < chunk.length; index++) if (chunk[index] === 0x0a) count++;
  return count;
}

/** Creates a collector; it creates its temp file only when the output outgrows the limits. */
export function createOutputCollector(options: OutputCollectorOptions): OutputCollector {
  const keepBytes = options.maxBytes + 4096;
  let tail: Buffer[] = [];
  let tailBytes = 0;
  let dropped = false;
  let totalBytes = 0;
  let newlines = 0;
  let lastByte = 0x0a;
  let file: WriteStream | undefined;
  let fullOutputPath: string | undefined;
  let fileError: string | undefined;
  let full = false;
  let fileBytes = 0;

  /** Writes what fits under `maxFileBytes`; the file is closed once full (`finish` then has nothing to wait for). */
  const writeToFile = (chunk: Buffer): boolean => {
    if (file === undefined) return true;
    const room = (options.maxFileBytes ?? Number.POSITIVE_INFINITY) - fileBytes;
    const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
    fileBytes += piece.length;
    const writable = piece.length === 0 || file.write(piece);
    if (piece.length < chunk.length) {
      file.end();
      file = undefined;
      full = true;
      return true;
    }
    return writable;
  };

  const spill = () => {
    fullOutputPath = nodePath.join(options.tempDir ?? tmpdir(), `gyre-bash-${randomBytes(8).toString("hex")}.log`);
    removeAtExit(fullOutputPath);
    file = createWriteStream(fullOutputPath, { flags: "wx", mode: 0o600 });
    file.on("error", (error) => {
      fileError = error.message;
      file = undefined;
    });
    for (const chunk of tail) writeToFile(chunk);
  };

  const decodeTail = () => {
    const joined = Buffer.concat(tail, tailBytes);
    return joined.subarray(dropped ? utf8SafeStart(joined, 0) : 0).toString("utf8");
  };

  return {
    push(chunk) {
      totalBytes += chunk.length;
      if (totalBytes <= COUNT_LINES_UP_TO) newlines += countNewlines(chunk);
      if (chunk.length > 0) lastByte = chunk[chunk.length - 1] ?? lastByte;
      tail.push(chunk);
      tailBytes += chunk.length;
      let writable = true;
      if (
        file === undefined &&
        fullOutputPath === undefined &&
        (totalBytes > options.maxBytes || newlines > options.maxLines)
      ) {
        spill();
      } else if (file !== undefined) {
        writable = writeToFile(chunk);
      }
      while (tail.length > 1 && tailBytes - (tail[0]?.length ?? 0) >= keepBytes) {
        tailBytes -= tail[0]?.length ?? 0;
        tail = tail.slice(1);
        dropped = true;
      }
      if (file?.writableNeedDrain) writable = false;
      return writable;
    },
    onDrain(listener) {
      if (file === undefined || !file.writableNeedDrain) listener();
      else file.once("drain", listener);
    },
    peek: decodeTail,
    readFrom: (from) => readTailFrom(Buffer.concat(tail, tailBytes), totalBytes, from),
    fullOutputPath: () => (fileError === undefined ? fullOutputPath : undefined),
    fileFull: () => full,
    async finish() {
      if (file !== undefined) {
        const stream = file;
        await new Promise<void>((resolve) => {
          stream.once("close", resolve);
          stream.end();
        });
      }
      return {
        tail: decodeTail(),
        totalBytes,
        totalLines: totalBytes <= COUNT_LINES_UP_TO ? newlines + (lastByte !== 0x0a ? 1 : 0) : undefined,
        fullOutputPath: fileError === undefined ? fullOutputPath : undefined,
        fullOutputError: fileError,
      };
    },
  };
}

/** The bytes of `tail` (the last of `totalBytes`) from byte `from` on, decoded; what is gone is counted. */
function readTailFrom(tail: Buffer, totalBytes: number, from: number) {
  const tailStart = totalBytes - tail.length;
  const start = Math.max(from, tailStart);
  const kept = tail.subarray(start - tailStart);
  const skippedBytes = start - Math.min(from, start);
  const text = kept.subarray(skippedBytes > 0 ? utf8SafeStart(kept, 0) : 0).toString("utf8");
  return { text, skippedBytes, totalBytes };
}

/**
 * The newline-delimited JSON-RPC reader of gyre's stdio MCP transports, both ways (the client's
 * pipe from a server, `gyre mcp serve`'s stdin). It replaces the SDK's buffer, which copies the
 * whole buffer on every chunk and searches it from the start on every read: a 50 MB line took
 * about a minute. Here each byte is scanned once and a line is joined once, so reading is linear.
 * A line above the byte cap is not kept: its bytes are dropped as they arrive, and when it ends
 * `onOversize` learns its size and the request id found at its start or end (docs/mcp.md).
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** An id as JSON-RPC writes it, near the start (`{"jsonrpc":"2.0","id":7,…`) or the end (`…,"id":7}`). */
const idPattern = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/;
const edgeBytes = 256;

export type OversizeLine = { bytes: number; limit: number; id: string | number | undefined };

export type LineBufferOptions = {
  maxLineBytes: number;
  /** Called when an over-long line ends; a message it returns is delivered in the line's place. */
  onOversize: (line: OversizeLine) => JSONRPCMessage | undefined;
  /** Turns one line into a message (throws on bad JSON or shape, as the SDK's does). */
  parse: (line: string) => JSONRPCMessage;
};

/** The SDK's ReadBuffer interface (`append`, `readMessage`, `clear`), linear and capped. */
export class LineBuffer {
  private parts: Buffer[] = [];
  private size = 0;
  /** While a line is over the cap: its first bytes, the last bytes seen, and its length so far. */
  private oversize: { head: Buffer; tail: Buffer; bytes: number } | undefined;
  private readonly ready: (string | JSONRPCMessage)[] = [];

  constructor(private readonly options: LineBufferOptions) {}

  append(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, end === -1 ? chunk.length : end);
      this.add(piece);
      if (end === -1) return;
      this.finishLine();
      start = end + 1;
    }
  }

  readMessage(): JSONRPCMessage | null {
    const next = this.ready.shift();
    if (next === undefined) return null;
    return typeof next === "string" ? this.options.parse(next.replace(/\r$/, "")) : next;
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
    this.oversize = undefined;
    this.ready.length = 0;
  }

  private add(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.oversize) {
      this.oversize.bytes += piece.length;
      this.oversize.tail = Buffer.concat([this.oversize.tail, piece]).subarray(-edgeBytes);
      return;
    }
    this.parts.push(piece);
    this.size += piece.length;
    if (this.size <= this.options.maxLineBytes) return;
    const all = Buffer.concat(this.parts);
    this.oversize = { head: all.subarray(0, edgeBytes), tail: all.subarray(-edgeBytes), bytes: all.length };
    this.parts = [];
    this.size = 0;
  }

  private finishLine(): void {
    const { oversize } = this;
    if (oversize) {
      this.oversize = undefined;
      const id = findId(oversize.head.toString("utf8")) ?? findId(oversize.tail.toString("utf8"));
      const replacement = this.options.onOversize({ bytes: oversize.bytes, limit: this.options.maxLineBytes, id });
      if (replacement) this.ready.push(replacement);
      return;
    }
    const line = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
    this.parts = [];
    this.size = 0;
    const text = line.toString("utf8");
    if (text.trim()) this.ready.push(text);
  }
}

function findId(text: string): string | number | undefined {
  const match = idPattern.exec(text);
  if (!match?.[1]) return undefined;
  try {
    return JSON.parse(match[1]) as string | number;
  } catch {
    return undefined;
  }
}

/** "64 MB" / "512 KB": the limit as a sentence names it. */
export function formatLimit(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.round(bytes / 1024)} KB`;
}

/**
 * Puts a LineBuffer into one of the SDK's stdio transports in place of its own buffer. The SDK
 * keeps the buffer in a field it reads on every chunk; its shape is checked first, so an SDK
 * that changes it fails loudly here rather than reading with no cap.
 */
export function installLineBuffer(transport: object, buffer: LineBuffer): void {
  const holder = transport as { _readBuffer?: { append?: unknown; readMessage?: unknown } };
  if (typeof holder._readBuffer?.append !== "function" || typeof holder._readBuffer.readMessage !== "function")
    throw new Error(
      "The MCP SDK's stdio transport no longer keeps its read buffer in _readBuffer; gyre must be updated.",
    );
  (holder as { _readBuffer: LineBuffer })._readBuffer = buffer;
}

/**
 * The append side of a session file. Lines are written in order through one queue; each write
 * holds only complete lines, so a crash loses at most what was being written. A new session's
 * file is created (with its header) by the first write, never earlier: no empty files.
 */
import { type FileHandle, mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import { describeError, GyreError } from "@gyre/ai";
import { acquireSessionLock, type SessionLock } from "./session-lock.js";
import type { SessionHeader } from "./types.js";

/** An append-only session file. Create with `forNewSession` or `openExisting`; always `close()`. */
export class SessionFile {
  private handle: FileHandle | undefined;
  private lock: SessionLock | undefined;
  private pending: string[] = [];
  private queue: Promise<void> = Promise.resolve();
  private failure: unknown;
  private needsNewline: boolean;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly header: SessionHeader | undefined,
    endsWithNewline: boolean,
  ) {
    this.needsNewline = !endsWithNewline;
  }

  /** A file for a new session; nothing touches the disk until the first `append`. */
  static forNewSession(path: string, header: SessionHeader): SessionFile {
    return new SessionFile(path, header, true);
  }

  /**
   * Locks and opens an existing session file for appending. Throws the lock's `GyreError` when
   * another live process holds it. A file without a final newline gets one before the next entry.
   */
  static async openExisting(path: string, endsWithNewline: boolean): Promise<SessionFile> {
    const file = new SessionFile(path, undefined, endsWithNewline);
    file.lock = await acquireSessionLock(path);
    try {
      file.handle = await open(path, "a");
    } catch (error) {
      await file.lock.release();
      throw error;
    }
    return file;
  }

  /** Queues complete lines (without "\n") for writing, in order. Returns at once. */
  append(lines: string[]): void {
    if (this.closed) throw new GyreError("usage", `Session ${this.path} is closed; open it again to append.`);
    this.pending.push(...lines);
    if (this.pending.length === lines.length) this.queue = this.queue.then(() => this.drain());
  }

  private async drain(): Promise<void> {
    const lines = this.pending;
    this.pending = [];
    if (lines.length === 0) return;
    try {
      let handle = this.handle;
      if (!handle) {
        handle = await this.create();
        lines.unshift(JSON.stringify(this.header));
      }
      const text = (this.needsNewline ? "\n" : "") + lines.join("\n") + "\n";
      this.needsNewline = true; // until the write is known complete
      const bytes = Buffer.from(text);
      let written = 0;
      while (written < bytes.length) written += (await handle.write(bytes, written)).bytesWritten;
      this.needsNewline = false;
    } catch (error) {
      this.failure ??= error;
    }
  }

  private async create(): Promise<FileHandle> {
    if (!this.header) throw new GyreError("usage", `Session ${this.path} was not opened for writing.`);
    await mkdir(dirname(this.path), { recursive: true });
    this.lock ??= await acquireSessionLock(this.path);
    this.handle = await open(this.path, "wx");
    return this.handle;
  }

  /**
   * Waits for queued lines and fsyncs them. Rejects with a `GyreError` when a write failed
   * (disk full, permissions); the entries stay in memory and later appends still try.
   */
  async flush(): Promise<void> {
    await this.queue;
    if (this.failure !== undefined) {
      const failure = this.failure;
      this.failure = undefined;
      throw new GyreError("usage", `Could not write session ${this.path}: ${describeError(failure)}`, {
        cause: failure,
      });
    }
    await this.handle?.sync();
  }

  /** Flushes, closes the file and releases the lock. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      await this.handle?.close();
      this.handle = undefined;
      await this.lock?.release();
    }
  }
}

/**
 * The append side of a session file. Lines are written in order through one queue; each write
 * holds only complete lines, so a crash loses at most what was being written. A new session's
 * file is created (with its header) by the first write, never earlier: no empty files.
 */
import { type FileHandle, mkdir, open, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { describeError } from "@gyre/ai";
import { CliError } from "../errors.js";
import type { SessionJournal, SessionJournals } from "./session-journal.js";
import { acquireSessionLock, type SessionLock } from "./session-lock.js";
import type { SessionHeader } from "./types.js";

const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

/** An append-only session file. Create with `forNewSession` or `openExisting`; always `close()`. */
export class SessionFile {
  private handle: FileHandle | undefined;
  private lock: SessionLock | undefined;
  private pending: string[] = [];
  private queue: Promise<void> = Promise.resolve();
  private scheduled = false;
  /** The bytes a failed write did not write; the next write starts with them. */
  private unwritten: Buffer = Buffer.alloc(0);
  private failure: unknown;
  /** The last write failed (and was reported); the next failure is the same outage. */
  private failing = false;
  /** The path no longer names the open file (reported once). */
  private detached = false;
  private needsNewline: boolean;
  private closed = false;
  private closing: Promise<void> | undefined;
  /** Gets each line before the file does (the fleet's Redis journal); usually none. */
  private readonly journal: SessionJournal | undefined;

  private constructor(
    readonly path: string,
    private readonly header: SessionHeader | undefined,
    endsWithNewline: boolean,
    journals: SessionJournals | undefined,
  ) {
    this.needsNewline = !endsWithNewline;
    this.journal = journals?.(path);
  }

  /** A file for a new session; nothing touches the disk until the first `append`. */
  static forNewSession(path: string, header: SessionHeader, journals?: SessionJournals): SessionFile {
    return new SessionFile(path, header, true, journals);
  }

  /**
   * Locks and opens an existing session file for appending. Throws the lock's `CliError` when
   * another live process holds it. A file without a final newline gets one before the next entry.
   */
  static async openExisting(path: string, endsWithNewline: boolean, journals?: SessionJournals): Promise<SessionFile> {
    const file = new SessionFile(path, undefined, endsWithNewline, journals);
    file.lock = await acquireSessionLock(path);
    try {
      file.handle = await open(path, "a");
      // A file an older gyre created with the umask's mode (often 644) is made private too.
      if (((await file.handle.stat()).mode & 0o077) !== 0) await file.handle.chmod(PRIVATE_FILE).catch(() => undefined);
    } catch (error) {
      await file.lock.release();
      throw error;
    }
    return file;
  }

  /** Queues complete lines (without "\n") for writing, in order. Returns at once. */
  append(lines: string[]): void {
    if (this.closed) throw new CliError("session_misuse", `Session ${this.path} is closed; open it again to append.`);
    this.pending.push(...lines);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.queue = this.queue.then(() => this.drain());
  }

  /**
   * Writes what is pending. A failed write keeps what did not reach the file (the bytes after the
   * last one written, or every line when the file could not be created) and the next drain writes
   * it first, so a passing failure (disk full) leaves no gap in the file: no entry loses its parent.
   */
  private async drain(): Promise<void> {
    this.scheduled = false;
    let lines = this.pending;
    this.pending = [];
    if (lines.length === 0 && this.unwritten.length === 0) return;
    try {
      let handle = this.handle;
      if (!handle) {
        try {
          handle = await this.create();
        } catch (error) {
          this.pending = lines.concat(this.pending);
          throw error;
        }
        lines = [JSON.stringify(this.header), ...lines];
      }
      if (lines.length > 0 && this.journal) {
        try {
          await this.journal.append(lines);
        } catch (error) {
          // Not in the journal means not written: kept, and journaled first on the next drain.
          this.pending = lines.concat(this.pending);
          throw error;
        }
      }
      if (lines.length > 0) {
        this.unwritten = Buffer.concat([
          this.unwritten,
          Buffer.from(`${this.needsNewline ? "\n" : ""}${lines.join("\n")}\n`),
        ]);
        this.needsNewline = false;
      }
      while (this.unwritten.length > 0) {
        const { bytesWritten } = await handle.write(this.unwritten);
        this.unwritten = this.unwritten.subarray(bytesWritten);
      }
      this.failing = false;
    } catch (error) {
      // One report per outage: while writes keep failing, flush() rejects only for the first failure.
      if (!this.failing) this.failure ??= error;
      this.failing = true;
    }
  }

  private async create(): Promise<FileHandle> {
    if (!this.header) throw new CliError("session_misuse", `Session ${this.path} was not opened for writing.`);
    // Sessions hold every file read and every command output: private to the user (umask aside).
    await mkdir(dirname(this.path), { recursive: true, mode: PRIVATE_DIR });
    this.lock ??= await acquireSessionLock(this.path);
    this.handle = await open(this.path, "wx", PRIVATE_FILE);
    return this.handle;
  }

  /**
   * Retries what an earlier write could not write, waits for queued lines and fsyncs them.
   * Rejects with a `CliError` ("session_write_failed") when a write failed (disk full, permissions) — once per outage; the
   * lines are kept and written first once writing works again — or when the file was deleted or
   * replaced on disk while open (what is written then reaches no file anyone can find).
   */
  async flush(): Promise<void> {
    // Once closing (a signal handler and the normal exit path may both close), a flush waits
    // for the close; it never races it on the handle (which made a false "deleted" alarm).
    if (this.closing) return this.closing;
    return this.flushNow();
  }

  private async flushNow(): Promise<void> {
    if (this.pending.length > 0 || this.unwritten.length > 0) this.schedule();
    await this.queue;
    if (this.failure !== undefined) {
      const failure = this.failure;
      this.failure = undefined;
      throw new CliError("session_write_failed", `Could not write session ${this.path}: ${describeError(failure)}`, {
        cause: failure,
      });
    }
    if (!this.handle) return;
    await this.handle.sync();
    if (!this.detached && !(await this.stillAtPath(this.handle))) {
      this.detached = true;
      throw new CliError(
        "session_write_failed",
        `Session ${this.path} was deleted or replaced while gyre was writing it; what this run adds is not saved there.`,
      );
    }
  }

  private async stillAtPath(handle: FileHandle): Promise<boolean> {
    try {
      const [opened, onDisk] = await Promise.all([handle.stat(), stat(this.path)]);
      return opened.ino === onDisk.ino && opened.dev === onDisk.dev;
    } catch {
      return false;
    }
  }

  /** Flushes, closes the file and releases the lock. Safe to call twice, also concurrently. */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flushNow();
    } finally {
      this.closed = true;
      await this.handle?.close();
      this.handle = undefined;
      await this.lock?.release();
    }
  }
}

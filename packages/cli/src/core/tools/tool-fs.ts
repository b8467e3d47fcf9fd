/**
 * The file-system interface the coding tools run on. The default is backed by
 * node:fs/promises; tests and remote backends can plug in their own. Failures must be thrown as
 * errors carrying a Node-style `code` ("ENOENT", "ENOTDIR", "EACCES"…) so tools can explain them.
 */
import { constants, createReadStream } from "node:fs";
import * as fs from "node:fs/promises";

/** What tools need to know about a file. `mtimeMs` may carry sub-millisecond precision. */
export type ToolFileStat = {
  isFile: boolean;
  isDirectory: boolean;
  size: number;
  mtimeMs: number;
  /** Permission bits (e.g. 0o644), kept when a file is rewritten. */
  mode: number;
};

/** One directory entry; `isDirectory` follows symlinks. */
export type ToolDirEntry = { name: string; isDirectory: boolean };

/** Async file operations used by read, write, edit, ls and the path policy. None blocks the event loop. */
export interface ToolFileSystem {
  /** Follows symlinks. */
  stat(path: string): Promise<ToolFileStat>;
  /** The canonical path with every symlink resolved; throws ENOENT when it does not exist. */
  realpath(path: string): Promise<string>;
  readFile(path: string, options?: { signal?: AbortSignal }): Promise<Uint8Array>;
  /** Up to `length` bytes from the start of the file. */
  readHead(path: string, length: number): Promise<Uint8Array>;
  /** The file as a stream of chunks, so large files are never held whole in memory. */
  readStream(path: string, options?: { signal?: AbortSignal }): AsyncIterable<Uint8Array>;
  /** Creates or truncates `path`; `exclusive` fails with EEXIST if it exists. */
  writeFile(path: string, data: Uint8Array, options?: { mode?: number; exclusive?: boolean }): Promise<void>;
  /** Atomically replaces `to` with `from` (same directory). */
  rename(from: string, to: string): Promise<void>;
  /** Removes a file; no error if it is already gone. */
  remove(path: string): Promise<void>;
  mkdir(path: string, options: { recursive: true }): Promise<void>;
  readdir(path: string): Promise<ToolDirEntry[]>;
}

/** The default {@link ToolFileSystem} over node:fs/promises. */
export function createNodeFileSystem(): ToolFileSystem {
  return {
    async stat(path) {
      const stats = await fs.stat(path);
      return {
        isFile: stats.isFile(),
        isDirectory: stats.isDirectory(),
        size: stats.size,
        mtimeMs: stats.mtimeMs,
        mode: stats.mode & 0o7777,
      };
    },
    realpath: (path) => fs.realpath(path),
    readFile: (path, options) => fs.readFile(path, { signal: options?.signal }),
    async readHead(path, length) {
      const handle = await fs.open(path, constants.O_RDONLY);
      try {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
    readStream: (path, options) => createReadStream(path, { signal: options?.signal, highWaterMark: 256 * 1024 }),
    async writeFile(path, data, options) {
      await fs.writeFile(path, data, { mode: options?.mode, flag: options?.exclusive ? "wx" : "w" });
      // The umask may have masked bits the original file had; restore them explicitly.
      if (options?.mode !== undefined) await fs.chmod(path, options.mode);
    },
    rename: (from, to) => fs.rename(from, to),
    remove: (path) => fs.rm(path, { force: true }),
    async mkdir(path, options) {
      await fs.mkdir(path, options);
    },
    async readdir(path) {
      const entries = await fs.readdir(path, { withFileTypes: true });
      return Promise.all(
        entries.map(async (entry) => {
          let isDirectory = entry.isDirectory();
          if (entry.isSymbolicLink()) {
            isDirectory = await fs.stat(`${path}/${entry.name}`).then(
              (stats) => stats.isDirectory(),
              () => false,
            );
          }
          return { name: entry.name, isDirectory };
        }),
      );
    },
  };
}

/** The Node error code of `error`, if any ("ENOENT"…). */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}

/**
 * The file-system interface the coding tools run on. The default is backed by
 * node:fs/promises; tests and remote backends can plug in their own. Failures must be thrown as
 * errors carrying a Node-style `code` ("ENOENT", "ENOTDIR", "EACCES"…) so tools can explain them.
 */
import { constants, createReadStream } from "node:fs";
import * as fs from "node:fs/promises";
import { decodeFileName, showPath, toNodePath } from "./file-names.js";

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

/**
 * The default {@link ToolFileSystem} over node:fs/promises. Paths are in the tools' form of
 * `file-names.ts` (bytes that are not UTF-8 as lone surrogates) both ways, so a name that is not
 * UTF-8 can be listed, resolved and opened again exactly.
 */
export function createNodeFileSystem(): ToolFileSystem {
  return {
    async stat(path) {
      const stats = await fs.stat(toNodePath(path));
      return {
        isFile: stats.isFile(),
        isDirectory: stats.isDirectory(),
        size: stats.size,
        mtimeMs: stats.mtimeMs,
        mode: stats.mode & 0o7777,
      };
    },
    realpath: async (path) => decodeFileName(await fs.realpath(toNodePath(path), { encoding: "buffer" })),
    async readFile(path, options) {
      const handle = await openForReading(path);
      try {
        return await handle.readFile({ signal: options?.signal });
      } finally {
        await handle.close();
      }
    },
    async readHead(path, length) {
      const handle = await openForReading(path);
      try {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
    async *readStream(path, options) {
      const handle = await openForReading(path);
      // The stream reads the handle checked above, never the path again; it closes the handle.
      yield* createReadStream("", { fd: handle, signal: options?.signal, highWaterMark: 256 * 1024 });
    },
    async writeFile(path, data, options) {
      const target = toNodePath(path);
      await fs.writeFile(target, data, { mode: options?.mode, flag: options?.exclusive ? "wx" : "w" });
      // The umask may have masked bits the original file had; restore them explicitly.
      if (options?.mode !== undefined) await fs.chmod(target, options.mode);
    },
    rename: (from, to) => fs.rename(toNodePath(from), toNodePath(to)),
    remove: (path) => fs.rm(toNodePath(path), { force: true }),
    async mkdir(path, options) {
      await fs.mkdir(toNodePath(path), options);
    },
    async readdir(path) {
      const entries = await fs.readdir(toNodePath(path), { withFileTypes: true, encoding: "buffer" });
      return Promise.all(
        entries.map(async (entry) => {
          const name = decodeFileName(entry.name);
          let isDirectory = entry.isDirectory();
          if (entry.isSymbolicLink()) {
            isDirectory = await fs.stat(toNodePath(`${path}/${name}`)).then(
              (stats) => stats.isDirectory(),
              () => false,
            );
          }
          return { name, isDirectory };
        }),
      );
    },
  };
}

/**
 * Opens `path` (a canonical path the policy checked) for reading and re-checks what was opened,
 * so swapping a path component for a symlink between the check and the open gains nothing:
 * the opened file's own path (`/proc/self/fd`) must still be `path`. Non-blocking, so a FIFO
 * never hangs; only regular files with one name are read (another name of a hard link may lie
 * outside the workspace). Throws an Error written for the model, with a `code`.
 */
export async function openForReading(path: string): Promise<fs.FileHandle> {
  const shown = showPath(path);
  const handle = await fs
    .open(toNodePath(path), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW)
    .catch((error: unknown) => {
      if (errorCode(error) !== "ELOOP") throw error;
      throw codedError("ESTALE", `${shown} became a symlink while it was being opened; refused.`);
    });
  try {
    const opened = await fs
      .readlink(`/proc/self/fd/${handle.fd}`, { encoding: "buffer" })
      .then(decodeFileName, () => path);
    if (opened !== path) {
      throw codedError(
        "ESTALE",
        `${shown} changed while it was being opened (it now leads to ${showPath(opened)}); refused.`,
      );
    }
    const info = await handle.stat();
    if (!info.isFile())
      throw codedError("EINVAL", `${shown} is not a regular file (a FIFO, socket or device); refused.`);
    if (info.nlink > 1) {
      throw codedError(
        "EMLINK",
        `${shown} has ${info.nlink} hard links, and another of its names may lie outside the workspace, so it is refused. ` +
          "Ask the user to copy the file (cp) into the workspace if it is meant to be read.",
      );
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The Node error code of `error`, if any ("ENOENT"…). */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}

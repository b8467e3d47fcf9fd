import { open } from "node:fs/promises";

/** Key files are tiny; a bound keeps a mistaken path (a log, /dev/zero) from being read whole. */
const MAX_KEY_FILE_BYTES = 64 * 1024;

/**
 * The API key in `path` (`--api-key-file`): its first line, trimmed. Throws an Error with one
 * sentence when the file cannot be read, is not a regular file, or holds no key.
 */
export async function readApiKeyFile(path: string): Promise<string> {
  let handle: import("node:fs/promises").FileHandle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw new Error(`--api-key-file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? error}).`);
  }
  try {
    if (!(await handle.stat()).isFile()) throw new Error(`--api-key-file ${path} is not a regular file.`);
    const buffer = Buffer.alloc(MAX_KEY_FILE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, MAX_KEY_FILE_BYTES, 0);
    const key =
      buffer
        .toString("utf8", 0, bytesRead)
        .replace(/^\uFEFF/, "")
        .split(/\r?\n/)[0]
        ?.trim() ?? "";
    if (key === "") throw new Error(`--api-key-file ${path} is empty; put the key on its first line.`);
    return key;
  } finally {
    await handle.close();
  }
}

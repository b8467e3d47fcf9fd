/** Atomic file replacement shared by the write and edit tools. */
import { randomBytes } from "node:crypto";
import * as nodePath from "node:path";
import type { ToolFileSystem } from "./tool-fs.js";

/**
 * Writes `data` to a temp file next to `path`, then renames it over `path`, so readers see the
 * old or the new content, never half of it. Keeps `mode` when given. Removes the temp file on
 * failure.
 */
export async function writeFileAtomic(
  fs: ToolFileSystem,
  path: string,
  data: Uint8Array,
  options: { mode?: number; signal?: AbortSignal } = {},
): Promise<void> {
  const temp = nodePath.join(
    nodePath.dirname(path),
    `.${nodePath.basename(path)}.${randomBytes(6).toString("hex")}.tmp`,
  );
  try {
    await fs.writeFile(temp, data, { mode: options.mode, exclusive: true });
    // Last moment to honour an abort: after the rename the change is done.
    options.signal?.throwIfAborted();
    await fs.rename(temp, path);
  } catch (error) {
    await fs.remove(temp).catch(() => undefined);
    throw error;
  }
}

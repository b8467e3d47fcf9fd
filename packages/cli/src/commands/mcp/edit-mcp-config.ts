/**
 * Editing `.mcp.json` files for `gyre mcp add` and `gyre mcp remove`: the file keeps every other
 * key and server as it was, and is replaced atomically (a crash never leaves half a file).
 */
import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { readMcpFile } from "../../core/mcp/mcp-config.js";

type McpFile = { mcpServers: Record<string, unknown> } & Record<string, unknown>;

/** Reads the whole file (an absent file is empty); throws a sentence naming the file when it is not valid. */
export async function readMcpFileForEdit(file: string): Promise<McpFile> {
  const read = await readMcpFile(file);
  return read ? { ...read.content, mcpServers: read.servers } : { mcpServers: {} };
}

/** Writes the file atomically (temp file + rename), creating its folder; user files are private (0600). */
export async function writeMcpFile(file: string, content: McpFile, options: { private: boolean }): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(content, null, 2)}\n`, options.private ? { mode: 0o600 } : {});
  await rename(temp, file);
}

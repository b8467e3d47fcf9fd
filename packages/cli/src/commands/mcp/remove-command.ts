/** `gyre mcp remove <name> [--scope user|project]`: removes the server from the file(s) that define it. */
import { projectMcpConfigPath, userMcpConfigPath } from "../../core/mcp/mcp-config.js";
import { parseCommandWords } from "../usage-error.js";
import { readMcpFileForEdit, writeMcpFile } from "./edit-mcp-config.js";
import type { McpCommandIo } from "./run-mcp-command.js";

/** Exit code: 0 when removed, 1 when no file had it, 2 on bad usage. */
export async function runRemoveCommand(words: string[], io: McpCommandIo): Promise<number> {
  const parsed = parseCommandWords("mcp remove", words, { scope: { type: "string", short: "s" } });
  if (!parsed.ok) return io.fail(parsed.error, 2);
  const scope = parsed.value.values.scope;
  if (scope !== undefined && scope !== "user" && scope !== "project")
    return io.fail(`--scope must be user or project; got "${scope}".`, 2);
  const names = parsed.value.positionals;
  const [name] = names;
  if (!name || names.length > 1) return io.fail("gyre mcp remove takes one server name: gyre mcp remove <name>.", 2);
  const files = [
    ...(scope !== "project" ? [{ file: userMcpConfigPath(io.gyreHome), scope: "user" }] : []),
    ...(scope !== "user" ? [{ file: projectMcpConfigPath(io.cwd), scope: "project" }] : []),
  ];
  let removed = 0;
  for (const { file, scope: fileScope } of files) {
    const content = await readMcpFileForEdit(file);
    if (!(name in content.mcpServers)) continue;
    delete content.mcpServers[name];
    await writeMcpFile(file, content, { private: fileScope === "user" });
    io.stdout.write(`Removed MCP server "${name}" (${fileScope} scope) from ${file}.\n`);
    removed++;
  }
  if (removed === 0)
    return io.fail(
      `No MCP server named "${name}" in ${files.map((entry) => entry.file).join(" or ")}; gyre mcp list shows the configured ones.`,
      1,
    );
  return 0;
}

/**
 * `gyre mcp add <name> [--scope user|project] [-e KEY=VALUE]… -- <command> [args…]` and
 * `gyre mcp add --transport http|sse <name> <url> [-H "Name: value"]…` (DESIGN §9).
 */
import { projectMcpConfigPath, userMcpConfigPath } from "../../core/mcp/mcp-config.js";
import { parseCommandWords } from "../usage-error.js";
import { readMcpFileForEdit, writeMcpFile } from "./edit-mcp-config.js";
import type { McpCommandIo } from "./run-mcp-command.js";

type AddArgs = {
  name: string;
  scope: "user" | "project";
  transport: "stdio" | "http" | "sse";
  env: Record<string, string>;
  headers: Record<string, string>;
  rest: string[];
};

/** Parses the words after `add` (node:util parseArgs; after `--` every word is the command); a sentence on bad usage. */
export function parseAddArgs(words: string[]): { ok: true; value: AddArgs } | { ok: false; error: string } {
  const parsed = parseCommandWords("mcp add", words, {
    scope: { type: "string", short: "s" },
    transport: { type: "string", short: "t" },
    env: { type: "string", short: "e", multiple: true },
    header: { type: "string", short: "H", multiple: true },
  });
  if (!parsed.ok) return parsed;
  const { values, positionals } = parsed.value;
  const scope = values.scope ?? "user";
  if (scope !== "user" && scope !== "project")
    return { ok: false, error: `--scope must be user or project; got "${scope}".` };
  const transport = values.transport ?? "stdio";
  if (transport !== "stdio" && transport !== "http" && transport !== "sse")
    return { ok: false, error: `--transport must be stdio, http or sse; got "${transport}".` };
  const args: Omit<AddArgs, "name"> & { name?: string } = {
    scope,
    transport,
    env: {},
    headers: {},
    rest: positionals.slice(1),
    ...(positionals[0] === undefined ? {} : { name: positionals[0] }),
  };
  for (const pair of values.env ?? []) {
    const at = pair.indexOf("=");
    if (at < 1) return { ok: false, error: `--env takes KEY=VALUE; got "${pair}".` };
    args.env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  for (const header of values.header ?? []) {
    const at = header.indexOf(":");
    if (at < 1) return { ok: false, error: `--header takes "Name: value"; got "${header}".` };
    args.headers[header.slice(0, at).trim()] = header.slice(at + 1).trim();
  }
  if (!args.name)
    return { ok: false, error: "gyre mcp add needs a server name: gyre mcp add <name> -- <command> [args…]." };
  if (!/^[A-Za-z0-9_-]+$/.test(args.name)) {
    return {
      ok: false,
      error: `Server name "${args.name}" may use only letters, digits, _ and - (it becomes part of tool names).`,
    };
  }
  if (args.rest.length === 0) {
    return {
      ok: false,
      error:
        args.transport === "stdio"
          ? "gyre mcp add needs the command after --: gyre mcp add <name> -- <command> [args…]."
          : `gyre mcp add --transport ${args.transport} needs the URL: gyre mcp add --transport ${args.transport} <name> <url>.`,
    };
  }
  if (args.transport !== "stdio" && (args.rest.length !== 1 || !URL.canParse(args.rest[0] ?? ""))) {
    return {
      ok: false,
      error: `gyre mcp add --transport ${args.transport} takes one URL such as http://127.0.0.1:3001/mcp; got "${args.rest.join(" ")}".`,
    };
  }
  return { ok: true, value: { ...args, name: args.name } };
}

/** Adds or replaces the server in the scope's file; exit code. */
export async function runAddCommand(words: string[], io: McpCommandIo): Promise<number> {
  const parsed = parseAddArgs(words);
  if (!parsed.ok) return io.fail(parsed.error, 2);
  const { name, scope, transport, env, headers, rest } = parsed.value;
  const file = scope === "user" ? userMcpConfigPath(io.gyreHome) : projectMcpConfigPath(io.cwd);
  const content = await readMcpFileForEdit(file);
  const replaced = name in content.mcpServers;
  const [command, ...commandArgs] = rest;
  content.mcpServers[name] =
    transport === "stdio"
      ? { command, args: commandArgs, ...(Object.keys(env).length > 0 ? { env } : {}) }
      : { type: transport, url: command, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
  await writeMcpFile(file, content, { private: scope === "user" });
  io.stdout.write(`${replaced ? "Replaced" : "Added"} MCP server "${name}" (${scope} scope) in ${file}.\n`);
  return 0;
}

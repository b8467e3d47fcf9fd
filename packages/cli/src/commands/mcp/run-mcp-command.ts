/**
 * `gyre mcp <subcommand>`: list, get, add, remove, serve (docs/design/mcp.md). main.ts hands over the words
 * after `mcp`; each subcommand lives in its own file and loads only when asked for.
 */
import { getGyreHome } from "../../core/config/paths.js";

/** What a subcommand may use: the folder, the environment, output streams, and a way to fail. */
export type McpCommandIo = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  gyreHome: string;
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Writes `gyre: <message>` to stderr and returns `code`. */
  fail(message: string, code: 1 | 2): number;
};

export const mcpHelpText = `Usage:
  gyre mcp list [--verbose] [--trust] [--mcp-config <file>]   each server, its state and tool count (--verbose: tools, errors, stderr tail)
  gyre mcp get <name>                                         where a server is configured, what it runs, its tools
  gyre mcp add <name> [--scope user|project] [-e KEY=VALUE]… -- <command> [args…]
  gyre mcp add --transport http|sse <name> <url> [-H "Name: value"]… [--scope user|project]
      [--client-id <id> [--client-secret <secret>]] [--callback-port <port>]   a pre-registered OAuth client
      [--client-metadata-url <https url>]      gyre's client id where the server takes metadata documents
      [--elicitation decline|defaults]         print/JSON mode: decline (default) or accept with the schema's defaults
  gyre mcp remove <name> [--scope user|project]
  gyre mcp login <name> [--timeout <ms>]                      OAuth login to a remote server (prints the URL, waits on a 127.0.0.1 callback)
  gyre mcp logout <name>                                      revoke and forget a remote server's OAuth tokens
  gyre mcp serve                                              gyre as an MCP server on stdio (tools gyre and gyre_reply)

Servers come from $GYRE_HOME/mcp.json (user scope), the project's .mcp.json (project scope, once
trusted) and --mcp-config files, in the format Claude Code reads; \${VAR} and \${VAR:-default} expand
from the environment.
`;

/** Runs `gyre mcp …`; the exit code (0 ok, 1 failed, 2 bad usage). */
export async function runMcpCommand(
  words: string[],
  streams: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    stdin?: NodeJS.ReadableStream;
    stdout: NodeJS.WritableStream;
    stderr: NodeJS.WritableStream;
  },
): Promise<number> {
  const io: McpCommandIo = {
    ...streams,
    stdin: streams.stdin ?? process.stdin,
    gyreHome: getGyreHome(streams.env),
    fail: (message, code) => {
      streams.stderr.write(`gyre: ${message}\n`);
      return code;
    },
  };
  const [subcommand, ...rest] = words;
  try {
    switch (subcommand) {
      case "list":
        return await (await import("./list-command.js")).runListCommand(rest, io);
      case "get":
        return await (await import("./list-command.js")).runGetCommand(rest, io);
      case "add":
        return await (await import("./add-command.js")).runAddCommand(rest, io);
      case "remove":
        return await (await import("./remove-command.js")).runRemoveCommand(rest, io);
      case "login":
        return await (await import("./login-command.js")).runLoginCommand(rest, io);
      case "logout":
        return await (await import("./login-command.js")).runLogoutCommand(rest, io);
      case "serve":
        return await (await import("./serve-command.js")).runServeCommand(rest, io);
      case undefined:
      case "--help":
      case "-h":
      case "help":
        io.stdout.write(mcpHelpText);
        return subcommand === undefined ? 2 : 0;
      default:
        return io.fail(
          `Unknown command gyre mcp ${subcommand}; use list, get, add, remove, login, logout or serve (gyre mcp --help).`,
          2,
        );
    }
  } catch (error) {
    return io.fail((error as Error).message, 1);
  }
}

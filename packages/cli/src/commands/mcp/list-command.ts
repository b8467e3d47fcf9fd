/**
 * `gyre mcp list [--verbose]` and `gyre mcp get <name>`: every configured server, connected for
 * real to show its state and tools; `--verbose` adds each server's error and stderr tail. A
 * project's servers are listed but not started unless the folder and its `.mcp.json` are trusted.
 */
import {
  describeServerConfig,
  describeUnusableServer,
  loadMcpServers,
  projectMcpConfigPath,
  readMcpConfigFile,
} from "../../core/mcp/mcp-config.js";
import type { McpManager } from "../../core/mcp/mcp-manager.js";
import type { McpServerEntry, McpServerStatus } from "../../core/mcp/types.js";
import { getProjectTrustState, isProjectMcpTrusted } from "../../core/trust.js";
import { version } from "../../version.js";
import { parseCommandWords } from "../usage-error.js";
import type { McpCommandIo } from "./run-mcp-command.js";

export type ListOptions = {
  verbose: boolean;
  trust: boolean;
  configFiles: string[];
  timeoutMs: number;
  names: string[];
};

export function parseListArgs(words: string[]): { ok: true; value: ListOptions } | { ok: false; error: string } {
  const parsed = parseCommandWords("mcp", words, {
    verbose: { type: "boolean", short: "v" },
    trust: { type: "boolean" },
    "mcp-config": { type: "string", multiple: true },
    timeout: { type: "string" },
  });
  if (!parsed.ok) return parsed;
  const { values, positionals } = parsed.value;
  const timeoutMs = values.timeout === undefined ? 10_000 : Number(values.timeout);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    return { ok: false, error: "--timeout needs a positive number of milliseconds." };
  return {
    ok: true,
    value: {
      verbose: values.verbose === true,
      trust: values.trust === true,
      configFiles: values["mcp-config"] ?? [],
      timeoutMs,
      names: positionals,
    },
  };
}

/** Loads the servers as a run in `io.cwd` would, and those of an unapproved project `.mcp.json` apart. */
export async function loadForListing(io: McpCommandIo, options: Pick<ListOptions, "trust" | "configFiles">) {
  const trusted =
    options.trust ||
    ((await getProjectTrustState({ gyreHome: io.gyreHome, cwd: io.cwd, fingerprint: "" }).catch(() => "untrusted")) !==
      "untrusted" &&
      (await isProjectMcpTrusted({ gyreHome: io.gyreHome, cwd: io.cwd, trustFlag: false })));
  const loaded = await loadMcpServers({
    gyreHome: io.gyreHome,
    cwd: io.cwd,
    trusted,
    configFiles: options.configFiles,
    env: io.env,
  });
  const held = trusted ? {} : ((await readMcpConfigFile(projectMcpConfigPath(io.cwd)).catch(() => undefined)) ?? {});
  return { loaded, held: Object.keys(held).filter((name) => !loaded.servers.some((server) => server.name === name)) };
}

/** Connects to `servers` and waits (bounded) for each to connect or fail. */
export async function connectAll(io: McpCommandIo, servers: McpServerEntry[], timeoutMs: number): Promise<McpManager> {
  const { createMcpManager } = await import("../../core/mcp/mcp-manager.js");
  const manager = createMcpManager({
    servers,
    cwd: io.cwd,
    env: io.env,
    clientVersion: version,
    gyreHome: io.gyreHome,
    startupTimeoutMs: timeoutMs,
    restartDelaysMs: [],
  });
  await manager.waitForStartup(timeoutMs);
  return manager;
}

/** `gyre mcp list`; exit 0 (even when servers failed: the list is the answer), 2 on bad usage. */
export async function runListCommand(words: string[], io: McpCommandIo): Promise<number> {
  const parsed = parseListArgs(words);
  if (!parsed.ok) return io.fail(parsed.error, 2);
  const options = parsed.value;
  const { loaded, held } = await loadForListing(io, options);
  for (const warning of loaded.warnings) io.stderr.write(`gyre: ${warning}\n`);
  if (loaded.servers.length === 0 && loaded.unusable.length === 0 && held.length === 0) {
    io.stdout.write("No MCP servers configured. Add one with gyre mcp add <name> -- <command> [args…].\n");
    return 0;
  }
  const manager = loaded.servers.length > 0 ? await connectAll(io, loaded.servers, options.timeoutMs) : undefined;
  try {
    const statuses = [...(manager?.statuses() ?? []), ...loaded.unusable.map(describeUnusableServer)];
    for (const status of statuses) {
      const entry = loaded.servers.find((server) => server.name === status.name);
      io.stdout.write(formatStatusLine(status, entry));
      if (options.verbose) io.stdout.write(formatDetails(status, manager));
    }
    for (const name of held)
      io.stdout.write(
        `${name}  not started  project  (this folder's .mcp.json is not trusted; run gyre in it and approve, or pass --trust)\n`,
      );
  } finally {
    await manager?.close();
  }
  return 0;
}

function formatStatusLine(status: McpServerStatus, entry: McpServerEntry | undefined): string {
  const state =
    status.state === "connected"
      ? `connected  ${status.toolCount} tool${status.toolCount === 1 ? "" : "s"}`
      : status.state;
  const what = entry ? describeServerConfig(entry.config) : "";
  const why = status.state !== "connected" && status.error ? `  — ${status.error}` : "";
  return `${status.name}  ${state}  ${status.scope}  ${what}${why}\n`;
}

function formatDetails(status: McpServerStatus, manager: McpManager | undefined): string {
  const lines: string[] = [];
  const tools = manager?.connection(status.name)?.tools() ?? [];
  if (tools.length > 0) lines.push(`    tools: ${tools.map((tool) => tool.name).join(", ")}`);
  if (status.error) lines.push(`    error: ${status.error}`);
  if (status.stderrTail.length > 0)
    lines.push("    stderr (last lines):", ...status.stderrTail.map((line) => `      ${line}`));
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}

/** `gyre mcp get <name>`: where it is configured, what it runs (secrets not shown), and its tools. */
export async function runGetCommand(words: string[], io: McpCommandIo): Promise<number> {
  const parsed = parseListArgs(words);
  if (!parsed.ok) return io.fail(parsed.error, 2);
  const [name] = parsed.value.names;
  if (!name || parsed.value.names.length > 1)
    return io.fail("gyre mcp get takes one server name: gyre mcp get <name>.", 2);
  const { loaded, held } = await loadForListing(io, parsed.value);
  const unusable = loaded.unusable.find((problem) => problem.name === name);
  if (unusable) return io.fail(`${unusable.problem} (in ${unusable.file})`, 1);
  if (held.includes(name))
    return io.fail(`"${name}" is in this folder's .mcp.json, which is not trusted; pass --trust to inspect it.`, 1);
  const entry = loaded.servers.find((server) => server.name === name);
  if (!entry) return io.fail(`No MCP server named "${name}"; gyre mcp list shows the configured ones.`, 1);
  const { config } = entry;
  const lines = [`${name}`, `  scope: ${entry.scope} (${entry.file})`, `  type: ${config.type}`];
  if (config.type === "stdio") {
    lines.push(`  command: ${describeServerConfig(config)}`);
    if (Object.keys(config.env).length > 0)
      lines.push(`  env: ${Object.keys(config.env).join(", ")} (values not shown)`);
  } else {
    lines.push(`  url: ${config.url}`);
    if (Object.keys(config.headers).length > 0)
      lines.push(`  headers: ${Object.keys(config.headers).join(", ")} (values not shown)`);
  }
  const manager = await connectAll(io, [entry], parsed.value.timeoutMs);
  try {
    const status = manager.statuses()[0];
    lines.push(`  state: ${status?.state ?? "unknown"}${status?.error ? ` — ${status.error}` : ""}`);
    for (const tool of manager.connection(name)?.tools() ?? [])
      lines.push(`  tool ${tool.name}: ${(tool.description ?? "").split("\n")[0]}`);
  } finally {
    await manager.close();
  }
  io.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

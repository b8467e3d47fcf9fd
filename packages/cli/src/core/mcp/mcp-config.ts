/**
 * Reading MCP server configurations (docs/design/mcp.md): `$GYRE_HOME/mcp.json`, the project's `.mcp.json`
 * (only when the project is trusted) and `--mcp-config <file>` files, in that order, a later one
 * replacing an earlier server of the same name. The format is Claude Code's, so a user's existing
 * `.mcp.json` works unchanged. No SDK import: this runs on every start-up that has servers.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expandRecord, expandVariables } from "./expand-variables.js";
import type {
  McpOAuthConfig,
  McpScope,
  McpServerConfig,
  McpServerEntry,
  McpServerLimits,
  McpServerStatus,
} from "./types.js";

/** A server that is configured but cannot be used as written (its `problem` says why). */
export type McpConfigProblem = { name: string; scope: McpScope; file: string; problem: string };

export type LoadedMcpServers = {
  servers: McpServerEntry[];
  /** Servers left out, each with one sentence saying why and what to fix. */
  unusable: McpConfigProblem[];
  /** Files that could not be read or parsed (their servers were all left out). */
  warnings: string[];
};

type RawConfig = Record<string, unknown>;

/** The user-scope file. */
export function userMcpConfigPath(gyreHome: string): string {
  return join(gyreHome, "mcp.json");
}

/** The project-scope file (Claude Code's location, so existing projects work unchanged). */
export function projectMcpConfigPath(cwd: string): string {
  return join(cwd, ".mcp.json");
}

/**
 * Reads a whole config file without expanding anything: its top-level object and its
 * `mcpServers`. Returns `undefined` when the file does not exist; throws an Error whose message
 * names the file and the problem.
 */
export async function readMcpFile(
  file: string,
): Promise<{ content: Record<string, unknown>; servers: Record<string, unknown> } | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`${file} cannot be read (${(error as Error).message}).`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message}); fix it or remove it.`);
  }
  if (!isRecord(parsed)) throw new Error(`${file} must contain a JSON object with "mcpServers".`);
  const servers = parsed.mcpServers ?? {};
  if (!isRecord(servers)) throw new Error(`${file}: "mcpServers" must be an object of server name → configuration.`);
  return { content: parsed, servers };
}

/** A config file's `mcpServers` object, unexpanded (see `readMcpFile`). */
export async function readMcpConfigFile(file: string): Promise<Record<string, unknown> | undefined> {
  return (await readMcpFile(file))?.servers;
}

/** How `gyre mcp list` and the UIs show a server whose configuration cannot be used. */
export function describeUnusableServer(problem: McpConfigProblem): McpServerStatus {
  return {
    name: problem.name,
    scope: problem.scope,
    transport: "stdio",
    state: "disabled",
    toolCount: 0,
    error: problem.problem,
    stderrTail: [],
    restarts: 0,
  };
}

/**
 * Turns one raw server configuration into a usable one: checks its shape and expands `${VAR}`
 * and `${VAR:-default}` in the command, arguments, env values, cwd, URL and header values.
 * Returns a sentence saying what is wrong instead of a config that would fail later.
 */
export function parseServerConfig(
  name: string,
  raw: unknown,
  env: NodeJS.ProcessEnv,
): { ok: true; config: McpServerConfig } | { ok: false; problem: string } {
  const fail = (problem: string) => ({ ok: false as const, problem: `MCP server "${name}": ${problem}` });
  if (!isRecord(raw)) return fail("its configuration must be an object.");
  const limits = readLimits(raw);
  if (typeof limits === "string") return fail(limits);
  const type = raw.type ?? (raw.url !== undefined ? "http" : "stdio");
  const missing: string[] = [];
  const expand = (text: string) => {
    const result = expandVariables(text, env);
    if (result.ok) return result.value;
    missing.push(...result.missing);
    return "";
  };
  const expandAll = (record: Record<string, string>) => {
    const result = expandRecord(record, env);
    if (result.ok) return result.value;
    missing.push(...result.missing);
    return {};
  };
  let config: McpServerConfig;
  if (type === "stdio") {
    if (typeof raw.command !== "string" || !raw.command.trim()) return fail('"command" must be a non-empty string.');
    if (raw.args !== undefined && !isStringList(raw.args)) return fail('"args" must be a list of strings.');
    if (raw.env !== undefined && !isStringRecord(raw.env)) return fail('"env" must be an object of strings.');
    if (raw.cwd !== undefined && typeof raw.cwd !== "string") return fail('"cwd" must be a string.');
    config = {
      type: "stdio",
      command: expand(raw.command),
      args: ((raw.args as string[] | undefined) ?? []).map(expand),
      env: expandAll((raw.env as Record<string, string> | undefined) ?? {}),
      ...(typeof raw.cwd === "string" ? { cwd: expand(raw.cwd) } : {}),
      ...limits,
    };
  } else if (type === "http" || type === "sse" || type === "streamable-http") {
    if (typeof raw.url !== "string" || !raw.url.trim()) return fail('"url" must be a non-empty string.');
    if (raw.headers !== undefined && !isStringRecord(raw.headers))
      return fail('"headers" must be an object of strings.');
    const oauth = readOAuth(raw.oauth, expand);
    if (typeof oauth === "string") return fail(oauth);
    config = {
      type: type === "sse" ? "sse" : "http",
      url: expand(raw.url),
      headers: expandAll((raw.headers as Record<string, string> | undefined) ?? {}),
      ...(oauth ? { oauth } : {}),
      ...limits,
    };
    if (missing.length === 0 && !URL.canParse(config.url)) return fail(`"url" ${config.url} is not a valid URL.`);
  } else {
    return fail(`unknown "type" ${JSON.stringify(type)}; use "stdio", "http" or "sse".`);
  }
  if (missing.length > 0) {
    const names = [...new Set(missing)].map((variable) => `\${${variable}}`).join(", ");
    return fail(
      `${names} ${missing.length > 1 ? "are" : "is"} not set; set it in the environment or write \${NAME:-default}.`,
    );
  }
  return { ok: true, config };
}

/** The `oauth` object of a remote server, its strings expanded; a sentence when it is malformed. */
function readOAuth(raw: unknown, expand: (text: string) => string): McpOAuthConfig | undefined | string {
  if (raw === undefined) return undefined;
  if (!isRecord(raw)) return '"oauth" must be an object (clientId, clientSecret, clientMetadataUrl, callbackPort).';
  const oauth: McpOAuthConfig = {};
  for (const key of ["clientId", "clientSecret", "clientMetadataUrl"] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== "string" || !value) return `"oauth.${key}" must be a non-empty string.`;
    oauth[key] = expand(value);
  }
  const unknown = Object.keys(raw).filter(
    (key) => !["clientId", "clientSecret", "clientMetadataUrl", "callbackPort"].includes(key),
  );
  if (unknown.length > 0)
    return `unknown "oauth" field ${unknown.map((key) => `"${key}"`).join(", ")}; it takes clientId, clientSecret, clientMetadataUrl and callbackPort.`;
  if (oauth.clientSecret && !oauth.clientId) return '"oauth.clientSecret" needs "oauth.clientId".';
  if (oauth.clientMetadataUrl !== undefined && !isHttpsDocumentUrl(oauth.clientMetadataUrl))
    return `"oauth.clientMetadataUrl" must be an https URL with a path; got ${oauth.clientMetadataUrl}.`;
  if (raw.callbackPort !== undefined) {
    const port = raw.callbackPort;
    if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535)
      return '"oauth.callbackPort" must be a port number (1-65535).';
    oauth.callbackPort = port;
  }
  return oauth;
}

function isHttpsDocumentUrl(text: string): boolean {
  if (!URL.canParse(text)) return text === "";
  const url = new URL(text);
  return url.protocol === "https:" && url.pathname !== "/";
}

function readLimits(raw: RawConfig): McpServerLimits | string {
  const limits: McpServerLimits = {};
  if (raw.elicitation !== undefined) {
    if (raw.elicitation !== "decline" && raw.elicitation !== "defaults")
      return `"elicitation" must be "decline" or "defaults"; got ${JSON.stringify(raw.elicitation)}.`;
    limits.elicitation = raw.elicitation;
  }
  for (const key of ["toolTimeoutMs", "startupTimeoutMs"] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0)
      return `"${key}" must be a positive number of milliseconds.`;
    limits[key] = value;
  }
  return limits;
}

/**
 * Loads every configured server: `$GYRE_HOME/mcp.json`, then the project's `.mcp.json` when
 * `trusted`, then each `configFiles` entry (`--mcp-config`). `noMcp` loads nothing. A broken user
 * or project file is a warning (its servers stay off); a broken or missing `--mcp-config` file
 * throws, since the user asked for it by name.
 */
export async function loadMcpServers(options: {
  gyreHome: string;
  cwd: string;
  trusted: boolean;
  configFiles: string[];
  env: NodeJS.ProcessEnv;
  noMcp?: boolean;
}): Promise<LoadedMcpServers> {
  const result: LoadedMcpServers = { servers: [], unusable: [], warnings: [] };
  if (options.noMcp) return result;
  const sources: { file: string; scope: McpScope }[] = [{ file: userMcpConfigPath(options.gyreHome), scope: "user" }];
  if (options.trusted) sources.push({ file: projectMcpConfigPath(options.cwd), scope: "project" });
  for (const file of options.configFiles) sources.push({ file, scope: "flag" });
  const byName = new Map<string, McpServerEntry | McpConfigProblem>();
  for (const { file, scope } of sources) {
    let raw: Record<string, unknown> | undefined;
    try {
      raw = await readMcpConfigFile(file);
    } catch (error) {
      if (scope === "flag") throw error;
      result.warnings.push(`${(error as Error).message} Its MCP servers were not started.`);
      continue;
    }
    if (!raw) {
      if (scope === "flag") throw new Error(`--mcp-config ${file} does not exist; pass the path of an .mcp.json file.`);
      continue;
    }
    for (const [name, value] of Object.entries(raw)) {
      const parsed = parseServerConfig(name, value, options.env);
      byName.set(
        name,
        parsed.ok ? { name, scope, file, config: parsed.config } : { name, scope, file, problem: parsed.problem },
      );
    }
  }
  for (const entry of byName.values()) {
    if ("problem" in entry) result.unusable.push(entry);
    else result.servers.push(entry);
  }
  return result;
}

/** A one-line description of what a server runs or where it connects, for the trust prompt and `gyre mcp get`. */
export function describeServerConfig(config: McpServerConfig): string {
  if (config.type === "stdio") return [config.command, ...config.args].map(quoteWord).join(" ");
  return `${config.type === "sse" ? "SSE" : "HTTP"} ${config.url}`;
}

function quoteWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((item) => typeof item === "string");
}

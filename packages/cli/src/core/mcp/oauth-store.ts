/**
 * Where OAuth credentials for remote MCP servers live: one file per server,
 * `$GYRE_HOME/mcp-auth/<server>.json`, mode 0600 in a 0700 folder. Nothing else in gyre writes
 * tokens anywhere (sessions and logs never see them; their values are registered for redaction).
 */
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { addProcessSecret } from "../session/redact-secrets.js";

/** What is kept for one server. `serverUrl` ties the credentials to the URL they were issued for. */
export type McpAuthRecord = {
  serverUrl: string;
  clientInformation?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** When the access token expires (ms since the epoch), from `expires_in` at the time it was saved. */
  expiresAt?: number;
  /** When the access token was saved (ms since the epoch): with `expiresAt`, its lifetime. */
  obtainedAt?: number;
  /** The PKCE verifier of a login in progress (in memory only; never written). */
  codeVerifier?: string;
  /** The callback port of the last login; reused so a registered redirect URI stays valid. */
  callbackPort?: number;
  /** Where the server's protected-resource metadata is, when its 401 named a place other than the default. */
  resourceMetadataUrl?: string;
  /** The scope the server last asked for (its 401 or 403 "insufficient_scope"); the next login requests it. */
  scope?: string;
};

/** The folder of all servers' credentials. */
export function mcpAuthDir(gyreHome: string): string {
  return join(gyreHome, "mcp-auth");
}

/** The credentials file of `server`; its name is the server's with anything unsafe replaced. */
export function mcpAuthFile(gyreHome: string, server: string): string {
  return join(mcpAuthDir(gyreHome), `${server.replace(/[^\w.-]/g, "_")}.json`);
}

/**
 * Reads the record of `server`, or undefined when there is none or it was issued for another
 * URL (a server re-pointed elsewhere must not receive the old server's token). Throws an Error
 * naming the file when it exists but is not JSON.
 */
export async function readMcpAuth(
  gyreHome: string,
  server: string,
  serverUrl: string,
): Promise<McpAuthRecord | undefined> {
  const record = await readStoredMcpAuth(gyreHome, server);
  return record?.serverUrl === serverUrl ? record : undefined;
}

/** Reads the record of `server` whatever URL it was issued for (logout revokes it there); undefined when none. */
export async function readStoredMcpAuth(gyreHome: string, server: string): Promise<McpAuthRecord | undefined> {
  const file = mcpAuthFile(gyreHome, server);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return undefined;
  }
  let record: McpAuthRecord;
  try {
    record = JSON.parse(text) as McpAuthRecord;
  } catch {
    throw new Error(`${file} is not valid JSON; delete it with gyre mcp logout ${server} and log in again.`);
  }
  addProcessSecret(record.tokens?.access_token);
  addProcessSecret(record.tokens?.refresh_token);
  return record;
}

/** Writes the record atomically with mode 0600 (the folder 0700). */
export async function writeMcpAuth(gyreHome: string, server: string, record: McpAuthRecord): Promise<void> {
  const dir = mcpAuthDir(gyreHome);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const file = mcpAuthFile(gyreHome, server);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
  addProcessSecret(record.tokens?.access_token);
  addProcessSecret(record.tokens?.refresh_token);
}

/** Deletes the record of `server`; resolves true when there was one. */
export async function removeMcpAuth(gyreHome: string, server: string): Promise<boolean> {
  const file = mcpAuthFile(gyreHome, server);
  try {
    await readFile(file);
  } catch {
    return false;
  }
  await rm(file, { force: true });
  return true;
}

/**
 * `gyre mcp login <server>` and `gyre mcp logout <server>`: OAuth 2.1 for a remote MCP server.
 * Login listens on a 127.0.0.1 callback, prints the authorization URL (and opens the browser when
 * it can), waits for the redirect with the code, and lets the SDK exchange it (with PKCE and, the
 * first time, dynamic client registration). Tokens land in `$GYRE_HOME/mcp-auth/` (mode 0600).
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpOAuthProvider } from "../../core/mcp/oauth-provider.js";
import { mcpAuthFile, readMcpAuth, readStoredMcpAuth, removeMcpAuth } from "../../core/mcp/oauth-store.js";
import { type RevokeOutcome, revokeTokens } from "../../core/mcp/oauth-token-calls.js";
import type { McpServerEntry } from "../../core/mcp/types.js";
import { loadForListing, parseListArgs } from "./list-command.js";
import type { McpCommandIo } from "./run-mcp-command.js";

const defaultLoginTimeoutMs = 300_000;

/** `gyre mcp login <server> [--timeout ms] [--trust] [--mcp-config file]`: 0 logged in, 1 failed, 2 bad usage. */
export async function runLoginCommand(words: string[], io: McpCommandIo): Promise<number> {
  const parsed = parseListArgs(words);
  if (!parsed.ok) return io.fail(parsed.error, 2);
  const found = await findRemoteServer(io, parsed.value);
  if (typeof found === "string") return io.fail(found, 2);
  const timeoutMs = words.includes("--timeout") ? parsed.value.timeoutMs : defaultLoginTimeoutMs;
  const url = found.config.type === "stdio" ? "" : found.config.url;
  const record = (await readMcpAuth(io.gyreHome, found.name, url)) ?? { serverUrl: url };
  // A new login replaces the tokens; the registered client is kept when its redirect URI still fits.
  delete record.tokens;
  delete record.expiresAt;
  const fixedPort = found.config.type === "stdio" ? undefined : found.config.oauth?.callbackPort;
  let callback: Callback;
  try {
    callback = await listenForCallback(fixedPort ?? record.callbackPort, fixedPort === undefined);
  } catch (error) {
    return io.fail(
      `The login's callback port ${fixedPort} (oauth.callbackPort) cannot be opened on 127.0.0.1 (${(error as Error).message}).`,
      1,
    );
  }
  try {
    const redirectUrl = `http://127.0.0.1:${callback.port}/callback`;
    if (record.callbackPort !== callback.port || !registeredFor(record.clientInformation, redirectUrl))
      delete record.clientInformation;
    record.callbackPort = callback.port;
    // What the server says before any token (RFC 9728 §5.1): where its metadata is, which scope it wants.
    const challenge = await probeForChallenge(url, found.config.type === "stdio" ? {} : found.config.headers);
    if (challenge.resourceMetadataUrl) record.resourceMetadataUrl = challenge.resourceMetadataUrl;
    const scope = joinScopes(challenge.scope, record.scope);
    if (scope) record.scope = scope;
    const where = {
      serverUrl: url,
      ...(scope ? { scope } : {}),
      ...(record.resourceMetadataUrl ? { resourceMetadataUrl: new URL(record.resourceMetadataUrl) } : {}),
    };
    const provider = createMcpOAuthProvider({
      gyreHome: io.gyreHome,
      server: found.name,
      record,
      redirectUrl,
      ...(found.config.type !== "stdio" && found.config.oauth ? { oauth: found.config.oauth } : {}),
      onAuthorizationUrl: (authorizationUrl) => {
        io.stdout.write(
          `Open this URL in your browser to log in to MCP server "${found.name}":\n  ${authorizationUrl.href}\n`,
        );
        openBrowser(authorizationUrl.href, io.env);
      },
    });
    const { auth } = await import("@modelcontextprotocol/sdk/client/auth.js");
    const first = await auth(provider, where);
    if (first === "REDIRECT") {
      const answer = await callback.wait(timeoutMs);
      if (answer.state !== provider.expectedState)
        return io.fail("The login callback carried the wrong state; nothing was saved. Run gyre mcp login again.", 1);
      if ((await auth(provider, { ...where, authorizationCode: answer.code })) !== "AUTHORIZED")
        return io.fail(`MCP server "${found.name}" did not accept the authorization code.`, 1);
    }
    io.stdout.write(
      `Logged in to MCP server "${found.name}"; its tokens are in ${mcpAuthFile(io.gyreHome, found.name)} (mode 0600).\n`,
    );
    return 0;
  } finally {
    callback.close();
  }
}

/**
 * `gyre mcp logout <server>`: revokes the server's tokens at its authorization server when that
 * offers revocation (RFC 7009), then forgets them and the client registration here. 0 when the
 * tokens are gone at both ends (or the server cannot revoke; said so), 1 when revoking failed
 * (they are deleted here all the same, and the sentence says they may still work there).
 */
export async function runLogoutCommand(words: string[], io: McpCommandIo): Promise<number> {
  const [name, ...rest] = words;
  if (!name || rest.length > 0 || name.startsWith("-")) return io.fail("Usage: gyre mcp logout <server>.", 2);
  let record: Awaited<ReturnType<typeof readStoredMcpAuth>>;
  let unreadable = false;
  try {
    record = await readStoredMcpAuth(io.gyreHome, name);
  } catch {
    unreadable = true;
  }
  const outcome: RevokeOutcome | undefined = record?.tokens ? await revokeTokens(record) : undefined;
  if (!(await removeMcpAuth(io.gyreHome, name))) {
    io.stdout.write(`No login is stored for MCP server "${name}".\n`);
    return 0;
  }
  if (unreadable)
    return io.fail(
      `Logged out of MCP server "${name}" here (its file was deleted), but the file was not valid JSON, so no token could be revoked at the server.`,
      1,
    );
  if (!outcome) {
    io.stdout.write(`Logged out of MCP server "${name}"; no tokens were stored, its file was deleted.\n`);
    return 0;
  }
  if (outcome.kind === "failed") {
    return io.fail(
      `Logged out of MCP server "${name}" here (its tokens were deleted), but revoking them at the server failed: ${outcome.reason}; they stay valid there until they expire.`,
      1,
    );
  }
  io.stdout.write(
    outcome.kind === "revoked"
      ? `Logged out of MCP server "${name}"; the server revoked its tokens and they were deleted here.\n`
      : `Logged out of MCP server "${name}"; its tokens were deleted here. Its authorization server offers no revocation, so they stay valid there until they expire.\n`,
  );
  return 0;
}

async function findRemoteServer(
  io: McpCommandIo,
  options: { names: string[]; trust: boolean; configFiles: string[] },
): Promise<McpServerEntry | string> {
  if (options.names.length !== 1) return "Usage: gyre mcp login <server> (one server name).";
  const name = options.names[0] ?? "";
  const { loaded } = await loadForListing(io, options);
  const entry = loaded.servers.find((server) => server.name === name);
  if (!entry) {
    const names = loaded.servers.map((server) => server.name);
    return `No MCP server "${name}" is configured here; choose from ${names.join(", ") || "(none)"} or add it with gyre mcp add --transport http.`;
  }
  if (entry.config.type === "stdio")
    return `MCP server "${name}" runs locally over stdio; only http and sse servers log in.`;
  return entry;
}

function registeredFor(information: unknown, redirectUrl: string): boolean {
  const uris = (information as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  return Array.isArray(uris) && uris.includes(redirectUrl);
}

type Callback = {
  port: number;
  wait(timeoutMs: number): Promise<{ code: string; state: string | null }>;
  close(): void;
};

/**
 * Sends the server an `initialize` without a token and reads its `WWW-Authenticate` challenge:
 * the protected-resource metadata URL and the scope it names. Empty when the server lets the
 * request through, does not answer, or names neither.
 */
async function probeForChallenge(
  url: string,
  headers: Record<string, string>,
): Promise<{ resourceMetadataUrl?: string; scope?: string }> {
  const body = {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "gyre", version: "login" } },
  };
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel().catch(() => {});
    if (response.status !== 401 && response.status !== 403) return {};
    const { extractWWWAuthenticateParams } = await import("@modelcontextprotocol/sdk/client/auth.js");
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    return {
      ...(resourceMetadataUrl ? { resourceMetadataUrl: resourceMetadataUrl.href } : {}),
      ...(scope ? { scope } : {}),
    };
  } catch {
    return {};
  }
}

/** The union of space-separated scopes, in first-seen order; undefined when there are none. */
function joinScopes(...scopes: (string | undefined)[]): string | undefined {
  const words = [...new Set(scopes.flatMap((scope) => scope?.split(" ").filter(Boolean) ?? []))];
  return words.length > 0 ? words.join(" ") : undefined;
}

/** A one-shot HTTP listener on 127.0.0.1 for the authorization server's redirect (any free port unless `fixed`). */
async function listenForCallback(preferredPort: number | undefined, fallBack = true): Promise<Callback> {
  let settle: { resolve: (value: { code: string; state: string | null }) => void; reject: (error: Error) => void };
  const received = new Promise<{ code: string; state: string | null }>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") return void response.writeHead(404).end();
    const code = url.searchParams.get("code");
    const problem = url.searchParams.get("error");
    response.writeHead(code ? 200 : 400, { "content-type": "text/plain; charset=utf-8" });
    response.end(
      code ? "gyre: logged in. You can close this tab.\n" : `gyre: login failed (${problem ?? "no code"}).\n`,
    );
    if (code) settle.resolve({ code, state: url.searchParams.get("state") });
    else {
      const description = url.searchParams.get("error_description");
      settle.reject(
        new Error(
          `The authorization server refused the login: ${problem ?? "no code"}${description ? ` (${description})` : ""}.`,
        ),
      );
    }
  });
  const port = await listen(server, preferredPort).catch((error) => {
    if (!fallBack) throw error;
    return listen(server, 0);
  });
  return {
    port,
    wait: (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(new Error(`No login arrived within ${Math.round(timeoutMs / 1000)} s; run gyre mcp login again.`)),
          timeoutMs,
        );
      });
      return Promise.race([received, timeout]).finally(() => clearTimeout(timer));
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

function listen(server: Server, port: number | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Opens `url` with $BROWSER or the desktop's opener; `BROWSER=none` (or no opener) only prints it. */
function openBrowser(url: string, env: NodeJS.ProcessEnv): void {
  const chosen = env.BROWSER ?? (process.platform === "darwin" ? "open" : "xdg-open");
  if (chosen === "none" || chosen === "") return;
  try {
    const child = spawn(chosen, [url], { stdio: "ignore", detached: true, env });
    child.on("error", () => {});
    child.unref();
  } catch {
    // The URL is printed; a missing opener is no failure.
  }
}

/**
 * The two token calls gyre makes to an MCP server's authorization server outside the SDK's
 * `auth()` flow: refreshing an access token shortly before it expires (so no request goes out
 * with a token the server is about to refuse), and revoking the tokens at logout (RFC 7009).
 * Both find the authorization server the way `auth()` does (RFC 9728, then RFC 8414 metadata).
 */
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { McpAuthRecord } from "./oauth-store.js";

type AuthSdk = typeof import("@modelcontextprotocol/sdk/client/auth.js");
type ServerInfo = Awaited<ReturnType<AuthSdk["discoverOAuthServerInfo"]>>;

const callTimeoutMs = 10_000;
/** Refresh at most this long before expiry… */
const maxRefreshMarginMs = 60_000;

/**
 * Whether the access token of `record` is expired or expires within its margin: a fifth of its
 * lifetime, at most a minute (a 1-hour token is refreshed in its last minute, a 10-second one in
 * its last 2 s). Without an expiry the server decides (a 401 still refreshes it).
 */
export function expiresSoon(record: McpAuthRecord, now = Date.now()): boolean {
  if (record.expiresAt === undefined) return false;
  const lifetime = record.obtainedAt !== undefined ? record.expiresAt - record.obtainedAt : undefined;
  const margin = lifetime !== undefined ? Math.min(maxRefreshMarginMs, lifetime / 5) : maxRefreshMarginMs;
  return record.expiresAt - now <= margin;
}

/**
 * Refreshes the tokens of `record` with its refresh token. Resolves with the new tokens (stamped
 * with the authorization server's URL, as the SDK stamps them), `"refused"` when the server
 * refused the refresh token (the user must log in again), or undefined when the refresh could not
 * be made (no refresh token or client, the server unreachable): the old token is used then, and
 * the SDK's 401 handling takes over if the server refuses it.
 */
export async function refreshTokens(record: McpAuthRecord): Promise<OAuthTokens | "refused" | undefined> {
  const refreshToken = record.tokens?.refresh_token;
  if (!refreshToken || !record.clientInformation) return undefined;
  const sdk = await import("@modelcontextprotocol/sdk/client/auth.js");
  const errors = await import("@modelcontextprotocol/sdk/server/auth/errors.js");
  try {
    const info = await discover(sdk, record);
    const issuer = String(info.authorizationServerUrl);
    // A refresh token goes only to the authorization server that issued it.
    if (record.tokens?.issuer && record.tokens.issuer !== issuer) return undefined;
    // As auth() does: checked against the server's URL, then sent as the metadata spells it.
    if (info.resourceMetadata) await sdk.selectResourceURL(record.serverUrl, {} as never, info.resourceMetadata);
    const resource = info.resourceMetadata?.resource;
    const tokens = await sdk.refreshAuthorization(info.authorizationServerUrl, {
      metadata: info.authorizationServerMetadata,
      clientInformation: record.clientInformation,
      refreshToken,
      ...(resource ? { resource } : {}),
      fetchFn: timedFetch,
    });
    return { ...tokens, issuer };
  } catch (error) {
    if (error instanceof errors.InvalidGrantError || error instanceof errors.InvalidClientError) return "refused";
    return undefined;
  }
}

/** What revoking achieved: `revoked`, the server has no revocation endpoint, or why it failed. */
export type RevokeOutcome = { kind: "revoked" } | { kind: "unsupported" } | { kind: "failed"; reason: string };

/**
 * Revokes the refresh token and the access token of `record` at the authorization server's
 * revocation endpoint (RFC 7009), refresh token first (servers revoke its access tokens with it).
 */
export async function revokeTokens(record: McpAuthRecord): Promise<RevokeOutcome> {
  const { tokens, clientInformation } = record;
  if (!tokens) return { kind: "revoked" };
  const sdk = await import("@modelcontextprotocol/sdk/client/auth.js");
  let info: ServerInfo;
  try {
    info = await discover(sdk, record);
  } catch (error) {
    return { kind: "failed", reason: `its authorization server could not be found (${(error as Error).message})` };
  }
  // No metadata at all is an unreachable (or broken) server, not one that cannot revoke.
  if (!info.authorizationServerMetadata)
    return {
      kind: "failed",
      reason: `no authorization server metadata could be read at ${info.authorizationServerUrl}`,
    };
  // OpenID metadata has no revocation field in the SDK's types, but servers may send it either way.
  const { revocation_endpoint: endpoint } = info.authorizationServerMetadata as { revocation_endpoint?: unknown };
  if (typeof endpoint !== "string") return { kind: "unsupported" };
  const pairs: [string, string][] = [
    ...(tokens.refresh_token ? [[tokens.refresh_token, "refresh_token"] as [string, string]] : []),
    [tokens.access_token, "access_token"],
  ];
  for (const [token, hint] of pairs) {
    const body = new URLSearchParams({ token, token_type_hint: hint });
    if (clientInformation?.client_id) body.set("client_id", clientInformation.client_id);
    if (clientInformation?.client_secret) body.set("client_secret", clientInformation.client_secret);
    const answer = await timedFetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    }).catch((error: Error) => error);
    if (answer instanceof Error) return { kind: "failed", reason: `${endpoint} did not answer (${answer.message})` };
    // RFC 7009 §2.2: 200 also for a token the server no longer knows.
    if (!answer.ok)
      return { kind: "failed", reason: `${endpoint} answered ${answer.status} ${await answerText(answer)}` };
  }
  return { kind: "revoked" };
}

/** The record's authorization server, found from the metadata URL its server named (else the default place). */
function discover(sdk: AuthSdk, record: McpAuthRecord): Promise<ServerInfo> {
  const where = record.resourceMetadataUrl ? { resourceMetadataUrl: new URL(record.resourceMetadataUrl) } : {};
  return sdk.discoverOAuthServerInfo(record.serverUrl, { ...where, fetchFn: timedFetch });
}

/** fetch with a bound: a stuck authorization server must not hang a request or a logout. */
const timedFetch: typeof fetch = (input, init) =>
  fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(callTimeoutMs) });

async function answerText(response: Response): Promise<string> {
  const text = (await response.text().catch(() => "")).trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

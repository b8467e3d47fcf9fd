/**
 * gyre's side of OAuth 2.1 for remote MCP servers, as the SDK's `OAuthClientProvider`: the SDK
 * does discovery, dynamic client registration, PKCE and token refresh; this keeps what it learns
 * in `$GYRE_HOME/mcp-auth/<server>.json` (oauth-store.ts). Outside `gyre mcp login` nobody can
 * open a browser, so a run that would need one fails with a sentence naming the login command.
 * An access token about to expire is refreshed before the request that would carry it, not only
 * after the server refused it.
 */
import { randomBytes } from "node:crypto";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { type McpAuthRecord, writeMcpAuth } from "./oauth-store.js";
import { expiresSoon, refreshTokens } from "./oauth-token-calls.js";
import type { McpOAuthConfig } from "./types.js";

/** Thrown when a server needs a fresh login (no token, or the refresh token was refused). */
export class McpLoginRequiredError extends Error {
  constructor(
    readonly server: string,
    widerScope?: string,
  ) {
    super(
      widerScope
        ? `MCP server "${server}" needs a login with more permissions (scope "${widerScope}"): run gyre mcp login ${server}.`
        : `MCP server "${server}" needs you to log in: run gyre mcp login ${server}.`,
    );
    this.name = "McpLoginRequiredError";
  }
}

export type McpOAuthProviderOptions = {
  gyreHome: string;
  server: string;
  /** The record read from disk (or a fresh `{ serverUrl }`); updated in place and saved on change. */
  record: McpAuthRecord;
  /** The loopback callback of a login; a run uses the one its login registered. */
  redirectUrl?: string;
  /** Shows the authorization URL to the user (login only); without it a redirect means "log in first". */
  onAuthorizationUrl?: (url: URL) => void | Promise<void>;
  /** The server's `oauth` settings: a pre-registered client, a client metadata document URL. */
  oauth?: McpOAuthConfig;
};

/**
 * The provider plus the `state` it sent, which the login's callback must echo, and
 * `needScope`, which the transport's fetch calls when the server refused a token as
 * `insufficient_scope`: the token is not refreshed then (a refresh keeps its scope) and the run
 * says to log in again, which asks for the wider scope.
 */
export type McpOAuthProvider = OAuthClientProvider & {
  readonly expectedState: string | undefined;
  needScope(scope: string): void;
};

/** Creates the provider over `options.record`. */
export function createMcpOAuthProvider(options: McpOAuthProviderOptions): McpOAuthProvider {
  const { record } = options;
  const redirectUrl =
    options.redirectUrl ?? (record.callbackPort ? `http://127.0.0.1:${record.callbackPort}/callback` : undefined);
  let state: string | undefined;
  let discovery: Parameters<NonNullable<OAuthClientProvider["saveDiscoveryState"]>>[0] | undefined;
  // The PKCE verifier never reaches the disk: a login runs in one process.
  const save = () => {
    const { codeVerifier: _inMemoryOnly, ...kept } = record;
    return writeMcpAuth(options.gyreHome, options.server, kept);
  };
  const oauth = options.oauth ?? {};
  const metadata: OAuthClientMetadata = {
    client_name: "gyre",
    redirect_uris: redirectUrl ? [redirectUrl] : [],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    // A CLI cannot keep a client secret; PKCE protects the code instead. A pre-registered client
    // with a secret authenticates with it (HTTP Basic unless the server takes only the body).
    token_endpoint_auth_method: oauth.clientSecret ? "client_secret_basic" : "none",
  };
  // A configured client wins over whatever was registered before (the user changed it).
  const preRegistered: OAuthClientInformationMixed | undefined = oauth.clientId
    ? { client_id: oauth.clientId, ...(oauth.clientSecret ? { client_secret: oauth.clientSecret } : {}) }
    : undefined;
  async function saveTokens(tokens: OAuthTokens) {
    record.tokens = tokens;
    record.obtainedAt = Date.now();
    if (tokens.expires_in !== undefined) record.expiresAt = record.obtainedAt + tokens.expires_in * 1000;
    else delete record.expiresAt;
    delete record.codeVerifier;
    await save();
  }
  let refreshing: Promise<OAuthTokens | undefined> | undefined;
  /** A scope the server demanded that the current token lacks (a 403 "insufficient_scope"). */
  let widerScope: string | undefined;
  const refreshEarly = async (): Promise<OAuthTokens | undefined> => {
    const refreshed = await refreshTokens(record);
    if (refreshed === undefined) return record.tokens;
    if (refreshed !== "refused") {
      await saveTokens(refreshed);
      return refreshed;
    }
    // Refused: no token goes out, the server answers 401, and the run says to log in again.
    delete record.tokens;
    delete record.expiresAt;
    await save();
    return undefined;
  };
  return {
    get redirectUrl() {
      return redirectUrl;
    },
    get clientMetadata() {
      return metadata;
    },
    get expectedState() {
      return state;
    },
    state() {
      state = randomBytes(16).toString("base64url");
      return state;
    },
    get clientMetadataUrl() {
      return oauth.clientMetadataUrl;
    },
    clientInformation: () => {
      if (!preRegistered) return record.clientInformation;
      const stored = record.clientInformation;
      return stored?.client_id === preRegistered.client_id ? { ...stored, ...preRegistered } : preRegistered;
    },
    async saveClientInformation(information: OAuthClientInformationMixed) {
      record.clientInformation = information;
      await save();
    },
    // The SDK asks before every request: the one place to refresh early. Concurrent requests share one refresh.
    needScope(scope: string) {
      widerScope = scope;
    },
    tokens: () => {
      if (widerScope && record.tokens) {
        // Without a refresh token the SDK starts a new authorization, which asks for the scope.
        const { refresh_token: _keptForLater, ...withoutRefresh } = record.tokens;
        return withoutRefresh;
      }
      if (!record.tokens?.refresh_token || !expiresSoon(record)) return record.tokens;
      refreshing ??= refreshEarly().finally(() => {
        refreshing = undefined;
      });
      return refreshing;
    },
    saveTokens,
    async redirectToAuthorization(url: URL) {
      if (!options.onAuthorizationUrl) {
        // The scope this authorization would have asked for (a 401's or a 403's): the login asks for it.
        const scope = url.searchParams.get("scope");
        if (scope && scope !== record.scope) {
          record.scope = scope;
          await save();
        }
        throw new McpLoginRequiredError(options.server, widerScope);
      }
      await options.onAuthorizationUrl(url);
    },
    saveCodeVerifier(verifier: string) {
      record.codeVerifier = verifier;
    },
    codeVerifier() {
      if (!record.codeVerifier)
        throw new Error("No login is in progress (no PKCE verifier); run gyre mcp login again.");
      return record.codeVerifier;
    },
    async invalidateCredentials(scope) {
      if (scope === "all" || scope === "client") delete record.clientInformation;
      if (scope === "all" || scope === "tokens") {
        delete record.tokens;
        delete record.expiresAt;
      }
      if (scope === "all" || scope === "verifier") delete record.codeVerifier;
      if (scope === "all" || scope === "discovery") discovery = undefined;
      await save();
    },
    saveDiscoveryState(next) {
      discovery = next;
    },
    discoveryState: () => discovery,
  };
}

/**
 * ChatGPT-plan sign-in, as Codex CLI does it: OAuth 2.0 authorization code with PKCE (RFC 7636,
 * S256) and a one-shot callback server on 127.0.0.1 at the port the client is registered with;
 * the tokens are refreshed with the refresh token a minute before they expire (docs/sign-in.md).
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { type AuthEndpoints, CODEX_CLIENT_ID, signInAgain } from "./auth-endpoints.js";
import type { CodexCredentials } from "./auth-store.js";
import { REFRESH_MARGIN_MS } from "./copilot-auth.js";

const base64url = (bytes: Buffer) => bytes.toString("base64url");

/** A PKCE pair: the verifier kept here, the challenge sent with the authorization request. */
export function createPkce(): { verifier: string; challenge: string } {
  const verifier = base64url(randomBytes(32));
  return { verifier, challenge: base64url(createHash("sha256").update(verifier).digest()) };
}

export type CodexLoginOptions = {
  endpoints: AuthEndpoints;
  /** Shows (or opens) the page where the user signs in. */
  onUrl(url: string): void;
  signal?: AbortSignal;
};

/** Signs in through the browser; resolves once the callback came and the code was exchanged. */
export async function loginCodex(options: CodexLoginOptions): Promise<CodexCredentials> {
  const { endpoints } = options;
  const pkce = createPkce();
  const state = randomBytes(16).toString("hex");
  const redirectUri = `http://localhost:${endpoints.codexCallbackPort}/auth/callback`;
  const code = await new Promise<string>((resolve, reject) => {
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? "/", redirectUri);
      if (url.pathname !== "/auth/callback") {
        response.writeHead(404).end();
        return;
      }
      const finish = (status: number, text: string, outcome: () => void) => {
        response.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" }).end(text);
        server.close();
        outcome();
      };
      if (url.searchParams.get("state") !== state)
        return finish(400, "This sign-in link does not belong to the running gyre login.", () =>
          reject(new Error("The sign-in callback carried a different state; run gyre login openai-codex again.")),
        );
      const error = url.searchParams.get("error");
      const received = url.searchParams.get("code");
      if (error || !received)
        return finish(400, "Sign-in failed; see the terminal.", () =>
          reject(new Error(`The sign-in was not completed: ${error ?? "no code"}.`)),
        );
      finish(200, "Signed in to gyre. You can close this tab.", () => resolve(received));
    });
    server.on("error", (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === "EADDRINUSE"
            ? `Port ${endpoints.codexCallbackPort} is in use (another sign-in, or Codex CLI?); close it and run gyre login openai-codex again.`
            : `Cannot listen for the sign-in callback: ${error.message}.`,
        ),
      ),
    );
    options.signal?.addEventListener("abort", () => {
      server.close();
      reject(new Error("Sign-in cancelled."));
    });
    server.listen(endpoints.codexCallbackPort, "127.0.0.1", () => {
      const authorize = new URL(`${endpoints.codexAuthUrl}/oauth/authorize`);
      for (const [key, value] of Object.entries({
        response_type: "code",
        client_id: CODEX_CLIENT_ID,
        redirect_uri: redirectUri,
        scope: "openid profile email offline_access",
        code_challenge: pkce.challenge,
        code_challenge_method: "S256",
        id_token_add_organizations: "true",
        codex_cli_simplified_flow: "true",
        state,
      }))
        authorize.searchParams.set(key, value);
      options.onUrl(authorize.href);
    });
  });
  const tokens = await postToken(
    endpoints,
    {
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      client_id: CODEX_CLIENT_ID,
      code_verifier: pkce.verifier,
    },
    options.signal,
  );
  return credentialsFrom(tokens);
}

type TokenAnswer = { access_token?: unknown; refresh_token?: unknown; id_token?: unknown; expires_in?: unknown };

async function postToken(
  endpoints: AuthEndpoints,
  fields: Record<string, string>,
  signal?: AbortSignal,
): Promise<TokenAnswer> {
  const response = await fetch(`${endpoints.codexAuthUrl}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
    body: new URLSearchParams(fields),
    ...(signal ? { signal } : {}),
  });
  const body = (await response.json().catch(() => ({}))) as TokenAnswer & { error?: unknown };
  if (fields.grant_type === "refresh_token" && (response.status === 400 || response.status === 401))
    throw new Error(signInAgain("openai-codex", `the refresh was refused: ${String(body.error ?? response.status)}`));
  if (!response.ok)
    throw new Error(`OpenAI's sign-in answered ${response.status}: ${String(body.error ?? "no reason given")}.`);
  return body;
}

/** The claims of a JWT's payload (not verified: the token came straight from the auth server over TLS). */
function jwtClaims(token: string): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function credentialsFrom(tokens: TokenAnswer, previous?: CodexCredentials): CodexCredentials {
  if (typeof tokens.access_token !== "string") throw new Error("OpenAI's sign-in gave no access token.");
  const refreshToken = typeof tokens.refresh_token === "string" ? tokens.refresh_token : previous?.refreshToken;
  if (!refreshToken) throw new Error("OpenAI's sign-in gave no refresh token.");
  const auth = (jwtClaims(typeof tokens.id_token === "string" ? tokens.id_token : tokens.access_token)[
    "https://api.openai.com/auth"
  ] ?? jwtClaims(tokens.access_token)["https://api.openai.com/auth"]) as { chatgpt_account_id?: unknown } | undefined;
  const accountId = typeof auth?.chatgpt_account_id === "string" ? auth.chatgpt_account_id : previous?.accountId;
  if (!accountId) throw new Error("The sign-in did not name a ChatGPT account (is this account on a ChatGPT plan?).");
  return {
    type: "openai-codex",
    accessToken: tokens.access_token,
    refreshToken,
    expiresAt: Date.now() + Number(tokens.expires_in ?? 3600) * 1000,
    accountId,
  };
}

/** The credentials with an access token valid for at least a minute; `changed` when they must be stored. */
export async function freshCodexCredentials(
  credentials: CodexCredentials,
  endpoints: AuthEndpoints,
  signal?: AbortSignal,
): Promise<{ credentials: CodexCredentials; changed: boolean }> {
  if (credentials.expiresAt - REFRESH_MARGIN_MS > Date.now()) return { credentials, changed: false };
  const tokens = await postToken(
    endpoints,
    {
      grant_type: "refresh_token",
      refresh_token: credentials.refreshToken,
      client_id: CODEX_CLIENT_ID,
      scope: "openid profile email",
    },
    signal,
  );
  return { credentials: credentialsFrom(tokens, credentials), changed: true };
}

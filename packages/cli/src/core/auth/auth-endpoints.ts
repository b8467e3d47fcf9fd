/**
 * The sign-in and API endpoints, as the providers document them, each overridable by an
 * environment variable (tests point them at local servers; docs/sign-in.md lists them).
 */

/** GitHub's OAuth app of Copilot's editor integrations (the device flow needs no secret). */
export const COPILOT_CLIENT_ID = "Iv1.b507a08c87ecfe98";
/** The OAuth client Codex CLI signs in with. */
export const CODEX_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann";

export type AuthEndpoints = {
  /** GitHub: `/login/device/code` and `/login/oauth/access_token` under it. */
  githubUrl: string;
  /** The Copilot token exchange. */
  copilotTokenUrl: string;
  /** The Copilot chat API base, when set: wins over what the token exchange names. */
  copilotApiUrl?: string;
  /** OpenAI's auth server: `/oauth/authorize` and `/oauth/token` under it. */
  codexAuthUrl: string;
  /** The Codex Responses API base (`/responses` under it). */
  codexApiUrl: string;
  /** The port of the local callback Codex's OAuth client is registered with. */
  codexCallbackPort: number;
};

const trim = (url: string) => url.replace(/\/+$/, "");

export function authEndpointsFrom(env: NodeJS.ProcessEnv): AuthEndpoints {
  return {
    githubUrl: trim(env.GYRE_COPILOT_AUTH_URL || "https://github.com"),
    copilotTokenUrl: env.GYRE_COPILOT_TOKEN_URL || "https://api.github.com/copilot_internal/v2/token",
    ...(env.GYRE_COPILOT_API_URL ? { copilotApiUrl: trim(env.GYRE_COPILOT_API_URL) } : {}),
    codexAuthUrl: trim(env.GYRE_CODEX_AUTH_URL || "https://auth.openai.com"),
    codexApiUrl: trim(env.GYRE_CODEX_API_URL || "https://chatgpt.com/backend-api/codex"),
    codexCallbackPort: Number(env.GYRE_CODEX_CALLBACK_PORT || 1455),
  };
}

/** The headers Copilot's API requires of an editor integration (its token exchange checks them too). */
export const COPILOT_HEADERS: Readonly<Record<string, string>> = {
  "User-Agent": "GitHubCopilotChat/0.26.7",
  "Editor-Version": "vscode/1.99.3",
  "Editor-Plugin-Version": "copilot-chat/0.26.7",
  "Copilot-Integration-Id": "vscode-chat",
};

/** Told to the user when a stored sign-in no longer works. */
export function signInAgain(provider: string, why: string): string {
  return `Your ${provider === "github-copilot" ? "GitHub Copilot" : "ChatGPT"} sign-in no longer works (${why}); run gyre login ${provider} to sign in again.`;
}

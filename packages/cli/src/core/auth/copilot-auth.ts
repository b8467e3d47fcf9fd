/**
 * GitHub Copilot sign-in: GitHub's OAuth device flow (RFC 8628: a code the user enters at
 * github.com/login/device, polled with `authorization_pending` and `slow_down`), then the
 * exchange of the GitHub token for the short-lived Copilot token the chat API takes, refreshed a
 * minute before it expires (docs/sign-in.md).
 */
import { type AuthEndpoints, COPILOT_CLIENT_ID, COPILOT_HEADERS, signInAgain } from "./auth-endpoints.js";
import type { CopilotCredentials } from "./auth-store.js";

/** What the user must do to finish signing in. */
export type DeviceCodePrompt = { userCode: string; verificationUri: string; expiresInSeconds: number };

export type CopilotLoginOptions = {
  endpoints: AuthEndpoints;
  /** Shows the code and the page to the user. */
  onCode(prompt: DeviceCodePrompt): void;
  signal?: AbortSignal;
  /** Waits between polls (tests pass a shorter clock; the intervals asked for are still honoured in proportion). */
  wait?: (ms: number, signal?: AbortSignal) => Promise<void>;
};

async function postForm(
  url: string,
  fields: Record<string, string>,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      Accept: "application/json",
      "Content-Type": "application/x-www-form-urlencoded",
      "User-Agent": COPILOT_HEADERS["User-Agent"] as string,
    },
    body: new URLSearchParams(fields),
    ...(signal ? { signal } : {}),
  });
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`GitHub answered ${response.status} with something that is not JSON.`);
  }
  if (!response.ok && typeof body.error !== "string") throw new Error(`GitHub answered ${response.status}.`);
  return body;
}

function defaultWait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new Error("Sign-in cancelled."));
    });
  });
}

/** Runs the device flow to its end: the GitHub token, exchanged once for a Copilot token. */
export async function loginCopilot(options: CopilotLoginOptions): Promise<CopilotCredentials> {
  const { endpoints, signal } = options;
  const wait = options.wait ?? defaultWait;
  const device = await postForm(
    `${endpoints.githubUrl}/login/device/code`,
    { client_id: COPILOT_CLIENT_ID, scope: "read:user" },
    signal,
  );
  if (typeof device.device_code !== "string" || typeof device.user_code !== "string")
    throw new Error("GitHub did not give a device code.");
  options.onCode({
    userCode: device.user_code,
    verificationUri: String(device.verification_uri ?? "https://github.com/login/device"),
    expiresInSeconds: Number(device.expires_in ?? 900),
  });
  let intervalSeconds = Number(device.interval ?? 5);
  const deadline = Date.now() + Number(device.expires_in ?? 900) * 1000;
  while (Date.now() < deadline) {
    await wait(intervalSeconds * 1000, signal);
    const answer = await postForm(
      `${endpoints.githubUrl}/login/oauth/access_token`,
      {
        client_id: COPILOT_CLIENT_ID,
        device_code: device.device_code,
        grant_type: "urn:ietf:params:oauth:grant-type:device_code",
      },
      signal,
    );
    if (typeof answer.access_token === "string") {
      const credentials: CopilotCredentials = { type: "github-copilot", githubToken: answer.access_token };
      return { ...credentials, ...(await exchangeCopilotToken(credentials, endpoints, signal)) };
    }
    switch (answer.error) {
      case "authorization_pending":
        continue;
      case "slow_down":
        // RFC 8628 §3.5: add 5 seconds to the interval for this and every later poll (or take the server's).
        intervalSeconds = Number(answer.interval ?? intervalSeconds + 5);
        continue;
      case "expired_token":
        throw new Error("The sign-in code expired before it was entered; run gyre login github-copilot again.");
      case "access_denied":
        throw new Error("The sign-in was declined on GitHub.");
      default:
        throw new Error(`GitHub refused the sign-in: ${String(answer.error_description ?? answer.error)}.`);
    }
  }
  throw new Error("The sign-in code expired before it was entered; run gyre login github-copilot again.");
}

/** Exchanges the GitHub token for a Copilot token; a refused GitHub token is the sentence to sign in again. */
export async function exchangeCopilotToken(
  credentials: CopilotCredentials,
  endpoints: AuthEndpoints,
  signal?: AbortSignal,
): Promise<Pick<CopilotCredentials, "copilotToken" | "copilotExpiresAt" | "apiUrl">> {
  const response = await fetch(endpoints.copilotTokenUrl, {
    headers: { ...COPILOT_HEADERS, Accept: "application/json", Authorization: `token ${credentials.githubToken}` },
    ...(signal ? { signal } : {}),
  });
  if (response.status === 401 || response.status === 403)
    throw new Error(
      signInAgain(
        "github-copilot",
        `GitHub answered ${response.status}: the token was revoked or this account has no Copilot`,
      ),
    );
  if (!response.ok) throw new Error(`The Copilot token exchange answered ${response.status}.`);
  const body = (await response.json()) as { token?: unknown; expires_at?: unknown; endpoints?: { api?: unknown } };
  if (typeof body.token !== "string") throw new Error("The Copilot token exchange gave no token.");
  return {
    copilotToken: body.token,
    copilotExpiresAt: Number(body.expires_at ?? 0) * 1000,
    ...(typeof body.endpoints?.api === "string" ? { apiUrl: body.endpoints.api } : {}),
  };
}

/** Refresh this long before the stored expiry, so a call never starts with a token about to lapse. */
export const REFRESH_MARGIN_MS = 60_000;

/** The credentials with a Copilot token valid for at least a minute; `changed` when they must be stored. */
export async function freshCopilotCredentials(
  credentials: CopilotCredentials,
  endpoints: AuthEndpoints,
  signal?: AbortSignal,
): Promise<{ credentials: CopilotCredentials; changed: boolean }> {
  if (credentials.copilotToken && (credentials.copilotExpiresAt ?? 0) - REFRESH_MARGIN_MS > Date.now())
    return { credentials, changed: false };
  return {
    credentials: { ...credentials, ...(await exchangeCopilotToken(credentials, endpoints, signal)) },
    changed: true,
  };
}

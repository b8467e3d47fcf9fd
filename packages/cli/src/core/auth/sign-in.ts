/**
 * One sign-in, start to end, for `gyre login` and `/login`: runs the provider's flow, fetches
 * Copilot's model list, stores the credentials. The caller shows the prompts (a code and a page,
 * or a page to open); nothing secret reaches them.
 */
import { authEndpointsFrom, COPILOT_HEADERS } from "./auth-endpoints.js";
import { type CopilotCredentials, type SignInProvider, writeCredentials } from "./auth-store.js";
import type { DeviceCodePrompt } from "./copilot-auth.js";

export type SignInOptions = {
  gyreHome: string;
  env: NodeJS.ProcessEnv;
  /** Copilot: the code to enter and where. */
  onCode(prompt: DeviceCodePrompt): void;
  /** ChatGPT: the page to sign in on. */
  onUrl(url: string): void;
  signal?: AbortSignal;
};

/** Signs in to `provider` and stores the result; resolves with a sentence for the user. Rejects with one saying what failed. */
export async function signIn(provider: SignInProvider, options: SignInOptions): Promise<string> {
  const endpoints = authEndpointsFrom(options.env);
  if (provider === "github-copilot") {
    const { loginCopilot } = await import("./copilot-auth.js");
    const credentials = await loginCopilot({
      endpoints,
      onCode: options.onCode,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const models = await listCopilotModels(credentials, endpoints.copilotApiUrl);
    await writeCredentials(options.gyreHome, provider, { ...credentials, ...(models.length > 0 ? { models } : {}) });
    const list =
      models.length > 0
        ? ` (${models.length} models: ${models.slice(0, 6).join(", ")}${models.length > 6 ? ", …" : ""})`
        : "";
    return `Signed in to GitHub Copilot${list}.`;
  }
  const { loginCodex } = await import("./codex-auth.js");
  const credentials = await loginCodex({
    endpoints,
    onUrl: options.onUrl,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  await writeCredentials(options.gyreHome, provider, credentials);
  return "Signed in to ChatGPT (provider openai-codex).";
}

/** Copilot's /models ids for this account (chat models only); empty when the list cannot be had. */
async function listCopilotModels(credentials: CopilotCredentials, apiOverride: string | undefined): Promise<string[]> {
  const base = apiOverride ?? credentials.apiUrl ?? "https://api.githubcopilot.com";
  try {
    const response = await fetch(`${base}/models`, {
      headers: { ...COPILOT_HEADERS, Authorization: `Bearer ${credentials.copilotToken}`, Accept: "application/json" },
      signal: AbortSignal.timeout(15_000),
    });
    if (!response.ok) return [];
    const body = (await response.json()) as { data?: { id?: unknown; capabilities?: { type?: unknown } }[] };
    return (body.data ?? [])
      .filter((model) => typeof model.id === "string" && (model.capabilities?.type ?? "chat") === "chat")
      .map((model) => model.id as string);
  } catch {
    return [];
  }
}

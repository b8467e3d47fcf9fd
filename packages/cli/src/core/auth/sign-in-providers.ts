/**
 * The providers a plan sign-in unlocks: `github-copilot` (Copilot's chat API, OpenAI Chat
 * Completions on the wire, with the editor headers it requires) and `openai-codex` (the Codex
 * Responses endpoint of a ChatGPT plan). Each call reads the stored sign-in, refreshes it before
 * expiry and stores the new tokens; the tokens go into the request's headers only, never into the
 * model, the session or telemetry. A refused sign-in ends the call with a sentence telling the
 * user to sign in again (docs/sign-in.md).
 */
import {
  AssistantMessageEventStream,
  type Context,
  createAssistantMessage,
  type Model,
  type ModelRegistry,
  registerApi,
  type StreamFunction,
  type StreamOptions,
  streamOpenAICompletions,
  streamOpenAIResponses,
} from "@gyre/ai";
import { addProcessSecret } from "../session/redact-secrets.js";
import { type AuthEndpoints, authEndpointsFrom, COPILOT_HEADERS } from "./auth-endpoints.js";
import { type AuthFile, readAuthFile, type SignInProvider, writeCredentials } from "./auth-store.js";

/** Copilot's models when its /models list was not stored at sign-in (ids as Copilot names them). */
const COPILOT_MODELS = ["gpt-4.1", "gpt-4o", "gpt-5-mini", "claude-sonnet-4", "gemini-2.5-pro"];
/** The models a ChatGPT plan offers through Codex. */
const CODEX_MODELS = ["gpt-5.1-codex", "gpt-5.1-codex-mini", "gpt-5.1", "gpt-5-codex", "gpt-5"];

export const SIGN_IN_DEFAULT_MODELS: Record<SignInProvider, string> = {
  "github-copilot": "gpt-4.1",
  "openai-codex": "gpt-5.1-codex",
};

function planModel(provider: SignInProvider, id: string, baseUrl: string): Model {
  return {
    id,
    name: id,
    api: provider,
    provider,
    baseUrl,
    reasoning: provider === "openai-codex" || id.startsWith("gpt-5"),
    input: ["text", "image"],
    contextWindow: provider === "openai-codex" ? 272_000 : 128_000,
    maxTokens: provider === "openai-codex" ? 128_000 : 16_384,
    // The plan pays: a call costs the user nothing per token.
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  };
}

/**
 * Registers both providers (signed in or not, so `--provider github-copilot` can say to sign in)
 * and their wire functions; returns the providers with a stored sign-in. Reads only auth.json.
 */
export async function registerSignInProviders(options: {
  models: ModelRegistry;
  home: string;
  env: NodeJS.ProcessEnv;
}): Promise<SignInProvider[]> {
  const endpoints = authEndpointsFrom(options.env);
  const file = await readAuthFile(options.home).catch((): AuthFile => ({}));
  const copilotBase = endpoints.copilotApiUrl ?? file["github-copilot"]?.apiUrl ?? "https://api.githubcopilot.com";
  const copilotIds = file["github-copilot"]?.models?.length ? file["github-copilot"].models : COPILOT_MODELS;
  options.models.registerProvider(
    { name: "github-copilot", api: "github-copilot", baseUrl: copilotBase },
    copilotIds.map((id) => planModel("github-copilot", id, copilotBase)),
  );
  options.models.registerProvider(
    { name: "openai-codex", api: "openai-codex", baseUrl: endpoints.codexApiUrl },
    CODEX_MODELS.map((id) => planModel("openai-codex", id, endpoints.codexApiUrl)),
  );
  registerApi("github-copilot", withSignIn("github-copilot", options.home, endpoints));
  registerApi("openai-codex", withSignIn("openai-codex", options.home, endpoints));
  return (["github-copilot", "openai-codex"] as const).filter((provider) => file[provider] !== undefined);
}

function withSignIn(provider: SignInProvider, home: string, endpoints: AuthEndpoints): StreamFunction {
  return (model, context, options) => {
    const outer = new AssistantMessageEventStream();
    void (async () => {
      try {
        const inner = await signedInStream(provider, { home, endpoints, model, context, options });
        for await (const event of inner) outer.push(event);
      } catch (error) {
        if (outer.isEnded) return;
        const message = createAssistantMessage(model, {
          stopReason: "error",
          errorMessage: error instanceof Error ? error.message : String(error),
        });
        outer.push({ type: "start", message: structuredClone(message) });
        outer.push({ type: "error", reason: "error", message });
      }
    })();
    return outer;
  };
}

async function signedInStream(
  provider: SignInProvider,
  call: { home: string; endpoints: AuthEndpoints; model: Model; context: Context; options: StreamOptions | undefined },
) {
  const { home, endpoints, model, context } = call;
  const options = call.options ?? {};
  const stored = (await readAuthFile(home))[provider];
  if (!stored) throw new Error(`Not signed in to ${provider}; run gyre login ${provider} (or pick another provider).`);
  if (stored.type === "github-copilot") {
    const { freshCopilotCredentials } = await import("./copilot-auth.js");
    const fresh = await freshCopilotCredentials(stored, endpoints, options.signal);
    if (fresh.changed) await writeCredentials(home, provider, fresh.credentials);
    // Should a tool print it (say, cat auth.json), session files and exported content redact it.
    addProcessSecret(fresh.credentials.copilotToken);
    addProcessSecret(fresh.credentials.githubToken);
    const last = context.messages.at(-1);
    return streamOpenAICompletions(
      {
        ...model,
        api: "openai-completions",
        baseUrl: endpoints.copilotApiUrl ?? fresh.credentials.apiUrl ?? model.baseUrl,
      },
      context,
      {
        ...options,
        apiKey: fresh.credentials.copilotToken as string,
        headers: {
          ...options.headers,
          ...COPILOT_HEADERS,
          "Openai-Intent": "conversation-edits",
          // Copilot counts premium requests per user prompt, not per agent step.
          "X-Initiator": last?.role === "user" ? "user" : "agent",
        },
      },
    );
  }
  const { freshCodexCredentials } = await import("./codex-auth.js");
  const fresh = await freshCodexCredentials(stored, endpoints, options.signal);
  if (fresh.changed) await writeCredentials(home, provider, fresh.credentials);
  addProcessSecret(fresh.credentials.accessToken);
  addProcessSecret(fresh.credentials.refreshToken);
  const { maxTokens: _unsupported, ...rest } = options;
  return streamOpenAIResponses({ ...model, api: "openai-responses", baseUrl: endpoints.codexApiUrl }, context, {
    ...rest,
    apiKey: fresh.credentials.accessToken,
    headers: {
      ...options.headers,
      "chatgpt-account-id": fresh.credentials.accountId,
      "OpenAI-Beta": "responses=experimental",
      originator: "codex_cli_rs",
      ...(options.sessionId ? { session_id: options.sessionId } : {}),
    },
  });
}

/**
 * Local stand-ins for the sign-in servers, each implementing its flow as the provider documents
 * it: GitHub's device flow (RFC 8628: `authorization_pending`, `slow_down` with a new interval)
 * and Copilot's token exchange; OpenAI's authorization-code flow with PKCE (the S256 challenge is
 * checked against the verifier), refresh, and revocation; the Codex Responses endpoint replays a
 * recorded Codex stream. Every request is kept for the tests' checks.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Seen = { method: string; path: string; headers: IncomingMessage["headers"]; body: string; at: number };

async function listen(handler: (request: IncomingMessage, body: string, response: ServerResponse) => unknown) {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      seen.push({
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        body,
        at: Date.now(),
      });
      void handler(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const json = (response: ServerResponse, status: number, value: unknown) =>
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));

/** GitHub + Copilot: pending once, slow_down once (interval raised), then the token. */
export async function startGitHubServer(options: { slowDownInterval: number }) {
  let polls = 0;
  const state = { revoked: false, exchanges: 0, copilotTtlSeconds: 1800 };
  const server = await listen((request, body, response) => {
    const form = new URLSearchParams(body);
    const path = (request.url ?? "").split("?")[0];
    if (path === "/login/device/code") {
      if (form.get("client_id") !== "Iv1.b507a08c87ecfe98") return json(response, 400, { error: "unknown client" });
      return json(response, 200, {
        device_code: "dev-123",
        user_code: "ABCD-1234",
        verification_uri: "https://github.com/login/device",
        expires_in: 60,
        interval: 0.05,
      });
    }
    if (path === "/login/oauth/access_token") {
      if (
        form.get("device_code") !== "dev-123" ||
        form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:device_code"
      )
        return json(response, 200, { error: "incorrect_device_code" });
      polls++;
      if (polls === 1) return json(response, 200, { error: "authorization_pending" });
      if (polls === 2) return json(response, 200, { error: "slow_down", interval: options.slowDownInterval });
      return json(response, 200, {
        access_token: "gho_githubtoken1234567890abcdefABCDEF12",
        token_type: "bearer",
        scope: "read:user",
      });
    }
    if (path === "/copilot_internal/v2/token") {
      if (state.revoked || request.headers.authorization !== "token gho_githubtoken1234567890abcdefABCDEF12")
        return json(response, 401, { message: "Bad credentials" });
      if (!request.headers["editor-version"]) return json(response, 400, { message: "editor-version required" });
      state.exchanges++;
      return json(response, 200, {
        token: `tid=copilot-${state.exchanges};exp=1`,
        expires_at: Math.floor(Date.now() / 1000) + state.copilotTtlSeconds,
        refresh_in: 1500,
        endpoints: { api: `${server.url}/api` },
      });
    }
    if (path === "/api/models")
      return json(response, 200, {
        data: [
          { id: "gpt-4.1", capabilities: { type: "chat" } },
          { id: "claude-sonnet-4.5", capabilities: { type: "chat" } },
          { id: "text-embedding-3-small", capabilities: { type: "embeddings" } },
        ],
      });
    if (path === "/api/chat/completions") {
      if (request.headers.authorization !== `Bearer tid=copilot-${state.exchanges};exp=1`)
        return json(response, 401, {});
      const chunk = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(
        chunk({
          id: "c1",
          object: "chat.completion.chunk",
          model: "gpt-4.1",
          choices: [{ index: 0, delta: { role: "assistant", content: "hello from copilot" } }],
        }),
      );
      response.write(
        chunk({
          id: "c1",
          object: "chat.completion.chunk",
          model: "gpt-4.1",
          choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
        }),
      );
      response.write(
        chunk({
          id: "c1",
          object: "chat.completion.chunk",
          model: "gpt-4.1",
          choices: [],
          usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
        }),
      );
      return response.end("data: [DONE]\n\n");
    }
    json(response, 404, {});
  });
  return { ...server, state, polls: () => polls };
}

function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none" })}.${part(claims)}.sig`;
}

/** OpenAI's auth server and the Codex endpoint. */
export async function startOpenAiServer(options: { fixture: string }) {
  const state = { challenge: "", redirectUri: "", refreshes: 0, revoked: false, expiresIn: 3600 };
  const fixture = await readFile(options.fixture, "utf8");
  const tokens = (access: string) => ({
    access_token: access,
    refresh_token: `refresh-${access}`,
    id_token: jwt({
      email: "me@example.com",
      "https://api.openai.com/auth": { chatgpt_account_id: "acct-42", chatgpt_plan_type: "plus" },
    }),
    expires_in: state.expiresIn,
  });
  const server = await listen((request, body, response) => {
    const url = new URL(request.url ?? "/", "http://x");
    if (url.pathname === "/oauth/authorize") {
      // The user signs in and consents; the server redirects back with a code.
      if (url.searchParams.get("code_challenge_method") !== "S256")
        return json(response, 400, { error: "pkce required" });
      state.challenge = url.searchParams.get("code_challenge") ?? "";
      state.redirectUri = url.searchParams.get("redirect_uri") ?? "";
      const back = new URL(state.redirectUri);
      back.searchParams.set("code", "code-xyz");
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      return response.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === "/oauth/token") {
      const form = new URLSearchParams(body);
      if (form.get("client_id") !== "app_EMoamEEZ73f0CkXaXp7hrann")
        return json(response, 401, { error: "invalid_client" });
      if (form.get("grant_type") === "authorization_code") {
        const verifier = form.get("code_verifier") ?? "";
        const challenge = createHash("sha256").update(verifier).digest("base64url");
        if (
          form.get("code") !== "code-xyz" ||
          challenge !== state.challenge ||
          form.get("redirect_uri") !== state.redirectUri
        )
          return json(response, 400, { error: "invalid_grant" });
        return json(response, 200, tokens("access-1"));
      }
      if (form.get("grant_type") === "refresh_token") {
        if (state.revoked) return json(response, 400, { error: "invalid_grant" });
        state.refreshes++;
        return json(response, 200, tokens(`access-${state.refreshes + 1}`));
      }
      return json(response, 400, { error: "unsupported_grant_type" });
    }
    if (url.pathname === "/codex/responses") {
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const line of fixture.trim().split("\n")) {
        const type = (JSON.parse(line) as { type: string }).type;
        response.write(`event: ${type}\ndata: ${line}\n\n`);
      }
      return response.end();
    }
    json(response, 404, {});
  });
  return { ...server, state };
}

/**
 * Opens an MCP client session over the transport a server's configuration names. The SDK is
 * imported here, and only here, with `await import()`: a run without MCP servers never loads it
 * (start-up time).
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createSafeEnv } from "../tools/safe-env.js";
import { formatLimit, installLineBuffer, LineBuffer } from "./line-buffer.js";
import type { StderrRing } from "./stderr-ring.js";
import type { McpServerConfig } from "./types.js";

/** The SDK modules a connection uses, loaded once on first use. */
export type McpSdk = {
  Client: typeof import("@modelcontextprotocol/sdk/client/index.js").Client;
  types: typeof import("@modelcontextprotocol/sdk/types.js");
};

let sdk: Promise<McpSdk> | undefined;

/** The largest single message a stdio server may send. */
const maxMessageBytes = 64 * 1024 * 1024;

/** Loads the SDK's client and types modules (once per process). */
export function loadMcpSdk(): Promise<McpSdk> {
  sdk ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]).then(([client, types]) => ({ Client: client.Client, types }));
  return sdk;
}

/**
 * Connects `client` to the server: stdio spawns the command (its stderr goes to `stderr`, its
 * environment is gyre's minus secret-looking variables plus the configured `env`); `http` tries
 * streamable HTTP and falls back to legacy SSE when the server rejects it; `sse` uses SSE.
 * Rejects when connecting (including `initialize`) fails or exceeds `timeoutMs`; the transport
 * is closed then (a spawned server is killed). Resolves with the open transport.
 */
export async function connectTransport(options: {
  client: Client;
  config: McpServerConfig;
  cwd: string;
  env: NodeJS.ProcessEnv;
  stderr: StderrRing;
  timeoutMs: number;
  signal?: AbortSignal;
  /** OAuth for a remote server the user logged in to (`gyre mcp login`). */
  authProvider?: OAuthClientProvider;
}): Promise<{ transport: Transport; kind: "stdio" | "http" | "sse" }> {
  const { client, config } = options;
  const requestOptions = { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
  if (config.type === "stdio") {
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const env = { ...createSafeEnv(options.env), ...config.env } as Record<string, string>;
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      env,
      cwd: config.cwd ?? options.cwd,
      stderr: "pipe",
      // Unused: gyre's own reader below replaces the SDK's (its 10 MB default dropped the connection).
      maxBufferSize: maxMessageBytes,
    });
    const { deserializeMessage } = await import("@modelcontextprotocol/sdk/shared/stdio.js");
    installLineBuffer(
      transport,
      new LineBuffer({
        maxLineBytes: maxMessageBytes,
        parse: deserializeMessage,
        // The request the huge answer was for fails with a sentence instead of waiting for its timeout.
        onOversize: ({ bytes, limit, id }) => {
          const text = `the server sent a ${formatLimit(bytes)} message, above gyre's limit of ${formatLimit(limit)} per message; it was dropped`;
          options.stderr.push(`gyre: ${text}\n`);
          if (id === undefined) return undefined;
          return { jsonrpc: "2.0", id, error: { code: -32600, message: `${text}. Ask the tool for less.` } };
        },
      }),
    );
    transport.stderr?.on("data", (chunk: Buffer) => options.stderr.push(chunk.toString("utf8")));
    await connectOrClose(client, transport, requestOptions);
    return { transport, kind: "stdio" };
  }
  const url = new URL(config.url);
  const requestInit: RequestInit = { headers: config.headers };
  const { authProvider } = options;
  const auth = authProvider
    ? { authProvider, ...("needScope" in authProvider ? { fetch: watchScopeDemands(authProvider as ScopeAware) } : {}) }
    : {};
  if (config.type === "http") {
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    try {
      const transport = new StreamableHTTPClientTransport(url, { requestInit, ...auth });
      await connectOrClose(client, transport, requestOptions);
      return { transport, kind: "http" };
    } catch (error) {
      // Only a server that answered with an HTTP error may be an old SSE server; a timeout, a
      // refused connection or a demand for authorization is final.
      if (!isHttpRejection(error) || isUnauthorized(error)) throw error;
    }
  }
  const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
  const transport = new SSEClientTransport(url, {
    requestInit,
    eventSourceInit: { fetch: withHeaders(config.headers) },
    ...auth,
  });
  await connectOrClose(client, transport, requestOptions);
  return { transport, kind: "sse" };
}

type ScopeAware = OAuthClientProvider & { needScope(scope: string): void };

/** fetch that tells the provider when the server refuses a token for its scope (RFC 6750 §3.1 "insufficient_scope"). */
function watchScopeDemands(provider: ScopeAware): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.status !== 403) return response;
    const challenge = response.headers.get("www-authenticate") ?? "";
    const scope = /\bscope="([^"]*)"/.exec(challenge)?.[1];
    if (/\berror="insufficient_scope"/.test(challenge) && scope) provider.needScope(scope);
    return response;
  };
}

/** Whether connecting failed because the server wants (other) OAuth credentials. */
export function isUnauthorized(error: unknown): boolean {
  const problem = error as { code?: unknown; name?: unknown; message?: unknown };
  return (
    problem.code === 401 ||
    problem.name === "UnauthorizedError" ||
    problem.name === "McpLoginRequiredError" ||
    (typeof problem.message === "string" && /\b401\b|Unauthorized/.test(problem.message))
  );
}

async function connectOrClose(
  client: Client,
  transport: Transport,
  requestOptions: { timeout: number; signal?: AbortSignal },
): Promise<void> {
  const connecting = client.connect(transport, requestOptions);
  // A stdio server has been spawned by now (connect starts the transport before its first await).
  // The SDK closes a failed transport without waiting, so a server that ignores the end of its
  // stdin would outlive gyre: it is killed here instead.
  const pid = (transport as { pid?: number | null }).pid ?? undefined;
  try {
    await connecting;
  } catch (error) {
    await transport.close().catch(() => {});
    killIfAlive(pid);
    throw error;
  }
}

/**
 * How long a stdio server gets to exit once its stdin has ended before gyre sends SIGTERM. The
 * SDK waits 2 s, and servers that keep timers (server-everything with a roots-capable client)
 * never exit on their own, so every gyre run and `gyre mcp list` with one took 2 s longer.
 */
const STDIN_END_GRACE_MS = 500;

/** Closes a connected client; a stdio server still running after the grace period gets SIGTERM. */
export async function closeClient(client: Client, transport: Transport): Promise<void> {
  const pid = (transport as { pid?: number | null }).pid ?? undefined;
  const timer = pid === undefined ? undefined : setTimeout(() => signalIfAlive(pid, "SIGTERM"), STDIN_END_GRACE_MS);
  try {
    await client.close();
  } finally {
    clearTimeout(timer);
  }
}

function signalIfAlive(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

function killIfAlive(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** Whether streamable HTTP failed because the server answered with a 4xx status (an SSE-only server does). */
function isHttpRejection(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "number" && code >= 400 && code < 500;
}

/** The SSE stream's GET carries the configured headers too (EventSource would not send them). */
function withHeaders(headers: Record<string, string>): typeof fetch {
  return (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return fetch(input, { ...init, headers: merged });
  };
}

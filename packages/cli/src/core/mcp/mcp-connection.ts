/**
 * One MCP server: connects in the background, keeps its tool list current (`tools/list_changed`),
 * calls tools with timeouts, progress and cancellation, and restarts a server that died with
 * backoff, saying so. Its stderr is kept in a bounded ring.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type {
  CallToolResult,
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { describeConnected } from "./describe-status.js";
import { closeClient, connectTransport, isUnauthorized, loadMcpSdk } from "./open-transport.js";
import { createStderrRing } from "./stderr-ring.js";
import type { McpServerEntry, McpServerState, McpServerStatus } from "./types.js";

/** How a connection talks to the rest of gyre. */
export type McpConnectionOptions = {
  entry: McpServerEntry;
  /** The workspace: offered to servers as the only root, and the cwd of stdio servers. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  clientVersion: string;
  /** Where `gyre mcp login` keeps OAuth tokens; without it remote servers connect without OAuth. */
  gyreHome?: string;
  /** Connecting may take this long (default 10 s; the entry's `startupTimeoutMs` wins). */
  startupTimeoutMs?: number;
  /** A one-line notice for the user (a restart, a failure). */
  onNotice?: (message: string, level?: "info" | "warning") => void;
  /** The tool list changed (connected, refreshed, or gone). */
  onToolsChanged?: () => void;
  /** The server's resource list may have changed (`resources/list_changed`, or a new connection). */
  onResourcesChanged?: () => void;
  /** Answers a server's elicitation request; without one, every request is declined. */
  elicit?: (request: ElicitRequest["params"], signal: AbortSignal) => Promise<ElicitResult>;
  /** Answers a server's sampling request; without one, sampling is not offered. */
  sample?: (request: CreateMessageRequest["params"], signal: AbortSignal) => Promise<CreateMessageResult>;
  /** Restart delays after unexpected exits, in order; once used up the server stays failed. */
  restartDelaysMs?: number[];
};

export type McpConnection = {
  readonly name: string;
  /** Settles (never rejects) once the first connection attempt succeeded or failed. */
  readonly ready: Promise<void>;
  status(): McpServerStatus;
  tools(): Tool[];
  /** Calls a tool. Rejects with the SDK's error (McpError with a code) or when not connected. */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: {
      signal?: AbortSignal;
      timeoutMs?: number;
      onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
    },
  ): Promise<CallToolResult>;
  /** The connected SDK client, for resources and prompts; undefined unless connected. */
  client(): Client | undefined;
  /** Stops the server and any pending restart; further calls fail. */
  close(): Promise<void>;
};

const defaultRestartDelaysMs = [500, 1000, 2000, 4000, 8000];
const defaultToolTimeoutMs = 60_000;

/** Creates the connection and starts connecting at once, in the background. */
export function createMcpConnection(options: McpConnectionOptions): McpConnection {
  const { entry } = options;
  const stderr = createStderrRing();
  const restartDelays = options.restartDelaysMs ?? defaultRestartDelaysMs;
  let state: McpServerState = "connecting";
  let error: string | undefined;
  let current: { client: Client; transport: Transport } | undefined;
  let tools: Tool[] = [];
  let restarts = 0;
  let closing = false;
  let restartTimer: NodeJS.Timeout | undefined;
  /** Aborts a connect in progress when the connection is closed (a stuck server must not linger). */
  const stopConnecting = new AbortController();
  let connecting: Promise<void> = Promise.resolve();
  const startupTimeoutMs = entry.config.startupTimeoutMs ?? options.startupTimeoutMs ?? 10_000;

  const setTools = (next: Tool[]) => {
    tools = next;
    options.onToolsChanged?.();
  };

  const connect = async (): Promise<void> => {
    state = "connecting";
    const { Client, types } = await loadMcpSdk();
    const client = new Client(
      { name: "gyre", version: options.clientVersion },
      {
        capabilities: {
          roots: { listChanged: false },
          // A form the user accepts with fields left out gets the schema's defaults for them.
          elicitation: { form: { applyDefaults: true } },
          ...(options.sample ? { sampling: {} } : {}),
        },
      },
    );
    const { sample } = options;
    if (sample) {
      client.setRequestHandler(types.CreateMessageRequestSchema, (request, extra) =>
        sample(request.params, extra.signal),
      );
    }
    client.setRequestHandler(types.ListRootsRequestSchema, async () => ({
      roots: [{ uri: new URL(`file://${options.cwd}`).href, name: "workspace" }],
    }));
    client.setRequestHandler(types.ElicitRequestSchema, async (request, extra) =>
      options.elicit ? options.elicit(request.params, extra.signal) : { action: "decline" },
    );
    try {
      const { transport } = await connectTransport({
        client,
        config: entry.config,
        cwd: options.cwd,
        env: options.env,
        stderr,
        timeoutMs: startupTimeoutMs,
        signal: stopConnecting.signal,
        ...(await oauthFor(entry, options.gyreHome)),
      });
      if (closing) {
        await transport.close().catch(() => {});
        return;
      }
      current = { client, transport };
      client.onclose = () => onClosed(client);
      if (client.getServerCapabilities()?.tools?.listChanged) {
        client.setNotificationHandler(types.ToolListChangedNotificationSchema, () => {
          void refreshTools(client).catch((problem: Error) =>
            options.onNotice?.(
              `MCP server "${entry.name}" changed its tools, but listing them failed: ${problem.message}`,
            ),
          );
        });
      }
      if (client.getServerCapabilities()?.resources?.listChanged) {
        client.setNotificationHandler(types.ResourceListChangedNotificationSchema, () =>
          options.onResourcesChanged?.(),
        );
      }
      await refreshTools(client);
      state = "connected";
      error = undefined;
      options.onToolsChanged?.();
      options.onResourcesChanged?.();
    } catch (problem) {
      error = describeConnectError(problem, startupTimeoutMs, entry.name);
      state = closing ? "closed" : "failed";
      await current?.transport.close().catch(() => {});
      current = undefined;
      throw problem;
    }
  };

  const refreshTools = async (client: Client) => {
    if (!client.getServerCapabilities()?.tools) return setTools([]);
    const listed: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: startupTimeoutMs });
      listed.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    if (current?.client === client) setTools(listed);
  };

  const onClosed = (client: Client) => {
    if (current?.client !== client || closing) return;
    current = undefined;
    const delay = restartDelays[restarts];
    const tail = stderr.tail(1)[0];
    const why = tail ? ` (last stderr line: ${tail})` : "";
    setTools([]);
    if (delay === undefined) {
      state = "failed";
      error = `exited ${restarts + 1} times; not restarted again${why}`;
      options.onNotice?.(
        `MCP server "${entry.name}" exited again and will not be restarted${why}. Run gyre mcp list --verbose to see its stderr.`,
      );
      return;
    }
    restarts++;
    state = "connecting";
    options.onNotice?.(
      `MCP server "${entry.name}" exited${why}; restarting it in ${formatDelay(delay)} (attempt ${restarts} of ${restartDelays.length}).`,
    );
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      connecting = connect();
      void connecting.then(
        () => options.onNotice?.(`MCP server "${entry.name}" is back with ${tools.length} tools.`),
        () => onRestartFailed(),
      );
    }, delay);
    restartTimer.unref();
  };

  const onRestartFailed = () => {
    if (closing) return;
    options.onNotice?.(`MCP server "${entry.name}" could not be restarted: ${error ?? "unknown error"}.`);
  };

  connecting = connect();
  const ready = connecting.then(
    () => {
      if (state === "connected") options.onNotice?.(describeConnected(entry.name, tools.length), "info");
    },
    () => {
      if (!closing) options.onNotice?.(`MCP server "${entry.name}" failed to connect: ${error ?? "unknown error"}.`);
    },
  );

  return {
    name: entry.name,
    ready,
    status: () => ({
      name: entry.name,
      scope: entry.scope,
      transport: entry.config.type,
      state,
      toolCount: tools.length,
      ...(error ? { error } : {}),
      stderrTail: stderr.tail(20),
      restarts,
    }),
    tools: () => tools,
    client: () => current?.client,
    async callTool(name, args, callOptions) {
      const client = current?.client;
      if (!client || state !== "connected") {
        throw new Error(
          `MCP server "${entry.name}" is ${state === "connecting" ? "still connecting" : `not available (${error ?? state})`}.`,
        );
      }
      const timeout = callOptions.timeoutMs ?? entry.config.toolTimeoutMs ?? defaultToolTimeoutMs;
      // One signal per call: the SDK leaves its abort listener on the signal it is given, and a
      // run's signal is shared by every call of the run.
      const call = new AbortController();
      const forward = () => call.abort(callOptions.signal?.reason);
      if (callOptions.signal?.aborted) forward();
      else callOptions.signal?.addEventListener("abort", forward, { once: true });
      try {
        return (await client.callTool({ name, arguments: args }, undefined, {
          timeout,
          // Progress shows the server is alive; the total stays bounded by maxTotalTimeout.
          resetTimeoutOnProgress: true,
          maxTotalTimeout: timeout * 10,
          signal: call.signal,
          ...(callOptions.onProgress ? { onprogress: callOptions.onProgress } : {}),
        })) as CallToolResult;
      } catch (problem) {
        // The user, not only the model, must learn that a login (e.g. for a wider scope) is due.
        if ((problem as Error).name === "McpLoginRequiredError")
          options.onNotice?.((problem as Error).message, "warning");
        throw problem;
      } finally {
        callOptions.signal?.removeEventListener("abort", forward);
      }
    },
    async close() {
      closing = true;
      if (restartTimer) clearTimeout(restartTimer);
      stopConnecting.abort();
      await connecting.catch(() => {});
      const open = current;
      current = undefined;
      state = "closed";
      if (open) await closeClient(open.client, open.transport).catch(() => {});
    },
  };
}

/** The OAuth provider of a remote server the user logged in to; none before a login (a 401 then says to log in). */
async function oauthFor(
  entry: McpServerEntry,
  gyreHome: string | undefined,
): Promise<{ authProvider?: import("@modelcontextprotocol/sdk/client/auth.js").OAuthClientProvider }> {
  if (entry.config.type === "stdio" || !gyreHome) return {};
  const { readMcpAuth } = await import("./oauth-store.js");
  const record = await readMcpAuth(gyreHome, entry.name, entry.config.url);
  if (!record?.tokens) return {};
  const { createMcpOAuthProvider } = await import("./oauth-provider.js");
  const oauth = entry.config.oauth ? { oauth: entry.config.oauth } : {};
  return { authProvider: createMcpOAuthProvider({ gyreHome, server: entry.name, record, ...oauth }) };
}

function describeConnectError(problem: unknown, timeoutMs: number, server: string): string {
  const error = problem as { code?: unknown; message?: string };
  if (isUnauthorized(problem))
    return `the server requires authorization; run gyre mcp login ${server} to log in (OAuth)`;
  if (error.code === -32001) return `no answer to initialize within ${formatDelay(timeoutMs)}`;
  const message = error.message ?? String(problem);
  if (/ENOENT/.test(message)) return `${message} (is the command installed and on PATH?)`;
  return message;
}

function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

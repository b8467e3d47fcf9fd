/**
 * `gyre acp`: an Agent Client Protocol v1 agent on stdio (docs/acp.md), built on the SDK's
 * `agent()` app. Each editor session is one gyre session (its own file, sandbox, MCP servers);
 * nothing but JSON-RPC goes to stdout. A bad request gets a JSON-RPC error and serving goes on;
 * when stdin closes every session is disposed and the process exits 0.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { Readable, Writable } from "node:stream";
import {
  type AgentContext,
  agent,
  type ClientCapabilities,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
  type SessionInfo,
} from "@agentclientprotocol/sdk";
import { describeError } from "@gyre/ai";
import { getSessionsDir } from "../../core/config/paths.js";
import { CliError } from "../../core/errors.js";
import { listSessions } from "../../core/session/session-store.js";
import { version } from "../../version.js";
import { createEditorFileSystem } from "./acp-file-system.js";
import { historyUpdates } from "./acp-history.js";
import { toGyreMcpServers } from "./acp-mcp.js";
import { AcpSession } from "./acp-session.js";
import type { OpenAcpSession } from "./acp-types.js";
import { type AcpPeer, createAcpUserInterface } from "./acp-ui.js";

export type AcpModeOptions = {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  gyreHome: string;
  open: OpenAcpSession;
};

/** Sessions listed per `session/list` page. */
const PAGE = 100;

export async function runAcpMode(options: AcpModeOptions): Promise<number> {
  const sessions = new Map<string, AcpSession>();
  let connection: AgentContext | undefined;
  let clientCapabilities: ClientCapabilities = {};
  const modeFile = (id: string) => join(options.gyreHome, "acp", `${id.replace(/[^\w-]/g, "_")}.json`);

  /** Start-up problems (an MCP server that failed…), told once the editor knows the session. */
  const startNotices = new WeakMap<AcpSession, string[]>();

  /** Opens a gyre session for the editor and wires it to the connection. */
  const openSession = async (params: {
    cwd: string;
    mcpServers?: Parameters<typeof toGyreMcpServers>[0] | undefined;
    load?: string;
  }): Promise<AcpSession> => {
    if (!isAbsolute(params.cwd)) throw RequestError.invalidParams({ cwd: params.cwd }, "cwd must be an absolute path.");
    const client = connection;
    if (!client) throw RequestError.internalError(undefined, "the connection is not open.");
    let bridge: AcpSession | undefined;
    const peer: AcpPeer = {
      client: () => connection,
      sessionId: () => bridge?.id,
      cwd: params.cwd,
      onAllowed: (toolCallId) => bridge?.allowed(toolCallId),
      notice: (text, level) => bridge?.notice(text, level),
    };
    const fs = clientCapabilities.fs;
    const sessionId = () => {
      if (!bridge) throw new Error("the session is not open yet");
      return bridge.id;
    };
    const fileSystem =
      fs?.readTextFile || fs?.writeTextFile
        ? createEditorFileSystem({
            ...(fs.readTextFile
              ? {
                  read: async (path: string) =>
                    (await client.request("fs/read_text_file", { sessionId: sessionId(), path })).content,
                }
              : {}),
            ...(fs.writeTextFile
              ? {
                  write: async (path: string, content: string) => {
                    await client.request("fs/write_text_file", { sessionId: sessionId(), path, content });
                  },
                }
              : {}),
          })
        : undefined;
    const saved = params.load ? await readMode(modeFile(params.load)) : undefined;
    const opened = await options
      .open({
        cwd: params.cwd,
        mcpServers: toGyreMcpServers(params.mcpServers ?? []),
        ui: createAcpUserInterface(peer),
        ...(fileSystem ? { fileSystem } : {}),
        ...(params.load ? { load: params.load } : {}),
        ...(saved === "plan" ? { plan: true } : {}),
      })
      .catch((error: unknown) => {
        throw toRequestError(error, params.load);
      });
    const id = opened.session.state.sessionId;
    bridge = new AcpSession(id, opened, client, params.cwd, options.env, (mode) => saveMode(modeFile(id), mode));
    sessions.set(id, bridge);
    startNotices.set(bridge, opened.notices);
    return bridge;
  };

  const find = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };

  /** What the editor shows once a session exists (after the response names it): commands, start-up notices. */
  const announce = (session: AcpSession) => {
    setTimeout(() => {
      void session.send({ sessionUpdate: "available_commands_update", availableCommands: session.availableCommands() });
      for (const notice of startNotices.get(session) ?? []) session.notice(notice, "warning");
      startNotices.delete(session);
    }, 0);
  };

  const app = agent({ name: "gyre" })
    .onConnect((opened) => {
      connection = opened.client;
    })
    .onRequest("initialize", ({ params }) => {
      clientCapabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {}, resume: {}, close: {} },
        },
        // Keys come from the environment (or --api-key-file): there is nothing to sign in to.
        authMethods: [],
        agentInfo: { name: "gyre", title: "gyre", version },
      };
    })
    .onRequest("authenticate", () => ({}))
    .onRequest("session/new", async ({ params }) => {
      const session = await openSession(params);
      announce(session);
      return { sessionId: session.id, modes: session.modeState(), configOptions: session.configOptions() };
    })
    .onRequest("session/load", async ({ params }) => {
      const session = sessions.get(params.sessionId) ?? (await openSession({ ...params, load: params.sessionId }));
      for (const update of historyUpdates(session.session.messages, session.cwd)) void session.send(update);
      await session.sendUsage();
      announce(session);
      return { modes: session.modeState(), configOptions: session.configOptions() };
    })
    .onRequest("session/resume", async ({ params }) => {
      const session = sessions.get(params.sessionId) ?? (await openSession({ ...params, load: params.sessionId }));
      announce(session);
      return { modes: session.modeState(), configOptions: session.configOptions() };
    })
    .onRequest("session/close", async ({ params }) => {
      const session = find(params.sessionId);
      sessions.delete(params.sessionId);
      await session.close();
      return {};
    })
    .onRequest("session/list", async ({ params }) => {
      const all = await listSessions({
        sessionsDir: getSessionsDir(options.gyreHome),
        ...(params.cwd ? { cwd: params.cwd } : {}),
      });
      const start = Number(params.cursor ?? 0) || 0;
      const page = all.filter((summary) => summary.mode !== "subagent").slice(start, start + PAGE);
      const listed: SessionInfo[] = page.map((summary) => ({
        sessionId: summary.id,
        cwd: summary.cwd,
        title: summary.name ?? (summary.firstMessage || null),
        updatedAt: summary.modified.toISOString(),
      }));
      return { sessions: listed, ...(page.length === PAGE ? { nextCursor: String(start + PAGE) } : {}) };
    })
    .onRequest("session/prompt", async ({ params }) => ({
      stopReason: await find(params.sessionId).prompt(params.prompt),
    }))
    .onNotification("session/cancel", async ({ params }) => {
      await sessions.get(params.sessionId)?.cancel();
    })
    .onRequest("session/set_mode", async ({ params }) => {
      await find(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onRequest("session/set_config_option", async ({ params }) => ({
      configOptions: await find(params.sessionId).setConfigOption(params.configId, params.value),
    }));

  // Stdout is the protocol's: whatever an extension or library logs goes to stderr instead.
  for (const name of ["log", "info", "debug"] as const) console[name] = console.error;
  const input = Readable.toWeb(options.stdin as Readable) as ReadableStream<Uint8Array>;
  const output = Writable.toWeb(options.stdout as Writable) as WritableStream<Uint8Array>;
  const opened = app.connect(ndJsonStream(output, input));
  // The editor stops its agent with a signal: the sessions are still written and closed.
  let signalled: number | undefined;
  const onSignal = (code: number) => () => {
    signalled = code;
    opened.close();
  };
  const onTerm = onSignal(143);
  const onInt = onSignal(130);
  process.once("SIGTERM", onTerm);
  process.once("SIGINT", onInt);
  await opened.closed;
  process.off("SIGTERM", onTerm);
  process.off("SIGINT", onInt);
  for (const session of sessions.values()) {
    await session.close().catch((error: unknown) => {
      options.stderr.write(`gyre: could not close session ${session.id}: ${describeError(error)}\n`);
    });
  }
  return signalled ?? 0;
}

/** A gyre error as the JSON-RPC error the editor shows: a locked or missing session is said so. */
function toRequestError(error: unknown, sessionId: string | undefined): unknown {
  if (error instanceof RequestError) return error;
  if (error instanceof CliError) {
    if (error.code === "session_locked")
      return RequestError.invalidRequest({ reason: "session_locked", sessionId }, error.message);
    if (error.code === "session_not_found" && sessionId) {
      const missing = RequestError.sessionNotFound(sessionId);
      missing.message = error.message;
      return missing;
    }
    return RequestError.invalidParams({ reason: error.code }, error.message);
  }
  return RequestError.internalError(undefined, describeError(error));
}

async function readMode(file: string): Promise<string | undefined> {
  try {
    const saved = JSON.parse(await readFile(file, "utf8")) as { mode?: unknown };
    return typeof saved.mode === "string" ? saved.mode : undefined;
  } catch {
    return undefined;
  }
}

/** The permission mode is not part of the session file; the editor's next load restores it from here. */
async function saveMode(file: string, mode: string): Promise<void> {
  try {
    await mkdir(join(file, ".."), { recursive: true });
    await writeFile(file, `${JSON.stringify({ mode })}\n`);
  } catch {
    // Losing the saved mode only means the next load starts in the default mode.
  }
}

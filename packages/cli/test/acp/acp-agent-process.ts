/**
 * `gyre acp` as a child process, driven by the ACP SDK's own client over its stdio: every
 * `session/update` and permission request is recorded, every stdout line is kept (to prove
 * stdout carries nothing but JSON-RPC), and the permission answer is the test's to choose.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import {
  type ClientConnection,
  type ClientContext,
  client,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { cliEnv, gyreBin } from "../helpers/run-cli.js";

export type AcpAgentProcess = {
  child: ChildProcessWithoutNullStreams;
  agent: ClientContext;
  connection: ClientConnection;
  notifications: SessionNotification[];
  permissions: RequestPermissionRequest[];
  /** `fs/read_text_file` paths and `fs/write_text_file` calls, in order. */
  reads: string[];
  writes: { path: string; content: string }[];
  stdoutLines(): string[];
  stderr(): string;
  /** Updates of one kind for one session, in arrival order. */
  updates<K extends SessionUpdate["sessionUpdate"]>(
    sessionId: string,
    kind: K,
  ): Extract<SessionUpdate, { sessionUpdate: K }>[];
  /** The last status a tool call was given in `session/update`s. */
  statusOf(sessionId: string, toolCallId: string | undefined): string | null | undefined;
  /** Resolves once an update matching `test` has arrived (or rejects after `timeoutMs`). */
  waitFor(test: (update: SessionUpdate) => boolean, timeoutMs?: number): Promise<SessionUpdate>;
  /** Closes stdin and waits for the exit code. */
  close(): Promise<number | null>;
  /** SIGKILL, as when an editor is killed with its agent; resolves once the process is gone. */
  kill(): Promise<void>;
};

export type StartOptions = {
  cwd: string;
  home: string;
  args: string[];
  env?: Record<string, string>;
  /** The answer to each `session/request_permission`; default: allow once. */
  answer?: (request: RequestPermissionRequest) => RequestPermissionResponse | Promise<RequestPermissionResponse>;
  /**
   * The editor's open buffers by absolute path: served by `fs/read_text_file` (other files from
   * disk); `fs/write_text_file` updates the buffer, saves it to disk and is recorded in `writes`.
   */
  buffers?: Map<string, string>;
};

export function startAcpAgent(options: StartOptions): AcpAgentProcess {
  const child = spawn(process.execPath, [gyreBin, "acp", ...options.args], {
    cwd: options.cwd,
    env: cliEnv(options.home, options.env),
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const notifications: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const reads: string[] = [];
  const writes: { path: string; content: string }[] = [];
  const waiters: { test: (update: SessionUpdate) => boolean; resolve: (update: SessionUpdate) => void }[] = [];
  const app = client({ name: "gyre-test-editor" })
    .onNotification("session/update", ({ params }) => {
      notifications.push(params);
      for (const waiter of [...waiters])
        if (waiter.test(params.update)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(params.update);
        }
    })
    .onRequest("session/request_permission", async ({ params }) => {
      permissions.push(params);
      return options.answer ? options.answer(params) : { outcome: { outcome: "selected", optionId: "allow_once" } };
    });
  const buffers = options.buffers;
  if (buffers)
    app
      .onRequest("fs/read_text_file", ({ params }) => {
        reads.push(params.path);
        return { content: buffers.get(params.path) ?? readFileSync(params.path, "utf8") };
      })
      .onRequest("fs/write_text_file", ({ params }) => {
        writes.push({ path: params.path, content: params.content });
        buffers.set(params.path, params.content);
        writeFileSync(params.path, params.content);
        return {};
      });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  return {
    child,
    agent: connection.agent,
    connection,
    notifications,
    permissions,
    reads,
    writes,
    stdoutLines: () => stdout.split("\n").filter((line) => line.trim() !== ""),
    stderr: () => stderr,
    updates: (sessionId, kind) =>
      notifications
        .filter((note) => note.sessionId === sessionId && note.update.sessionUpdate === kind)
        .map((note) => note.update as Extract<SessionUpdate, { sessionUpdate: typeof kind }>),
    statusOf: (sessionId, toolCallId) =>
      notifications
        .filter((note) => note.sessionId === sessionId)
        .map((note) => note.update)
        .filter((update) => update.sessionUpdate === "tool_call_update" && update.toolCallId === toolCallId)
        .map((update) => (update.sessionUpdate === "tool_call_update" ? update.status : undefined))
        .at(-1),
    waitFor: (test, timeoutMs = 20_000) => {
      const seen = notifications.find((note) => test(note.update));
      if (seen) return Promise.resolve(seen.update);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching update within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          test,
          resolve: (update) => {
            clearTimeout(timer);
            resolve(update);
          },
        });
      });
    },
    close: async () => {
      connection.close();
      child.stdin.end();
      return exited;
    },
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
      connection.close();
    },
  };
}

/** `initialize` as an editor sends it: without fs or terminal capabilities unless `fs` is true. */
export function initialize(agent: ClientContext, options: { fs?: boolean } = {}) {
  const fs = options.fs === true;
  return agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: fs, writeTextFile: fs }, terminal: false },
    clientInfo: { name: "gyre-test-editor", version: "1.0.0" },
  });
}

/**
 * One language server process for one (server, root) pair, spoken to over its stdio with
 * vscode-jsonrpc. It keeps the files gyre opened in sync (full text on every change) and answers
 * "the diagnostics of this file at this version" by the best means the server offers: LSP's pull
 * request, the TypeScript server's own synchronous request (typescript-language-server publishes
 * without versions and stays silent when nothing changed, so waiting for a push cannot tell "clean"
 * from "still checking"), or else the pushed diagnostics for that version. Loaded only when an
 * `lsp` setting exists (core/lsp/lsp-service.ts imports it on the first start).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { access, constants } from "node:fs/promises";
import { constants as osConstants } from "node:os";
import { resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";
import {
  createMessageConnection,
  type MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-jsonrpc/node";
import {
  type Diagnostic,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DocumentDiagnosticRequest,
  ExecuteCommandRequest,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  type PublishDiagnosticsParams,
  type ServerCapabilities,
  ShutdownRequest,
} from "vscode-languageserver-protocol";
import type { ReadOnlyLaunch } from "../sandbox/confine-read-only.js";
import { privateTmpBinds, withReadOnlyBinds } from "../sandbox/private-tmp-binds.js";
import { findExecutable } from "../sandbox/probe-sandbox.js";
import { signalProcessGroup } from "../tools/process-group.js";
import { convertDiagnostic, convertTsserverDiagnostics, languageIdOf } from "./convert-diagnostics.js";
import type { DiagnosticsAnswer, FileDiagnostic } from "./types.js";

const TSSERVER_REQUEST = "typescript.tsserverRequest";
/** A server that sends no version with its diagnostics: further pushes within this long still count. */
const UNVERSIONED_SETTLE_MS = 150;
const STDERR_KEPT = 2000;

export type LspClientOptions = {
  /** The setting's name ("typescript"), for messages. */
  name: string;
  command: string;
  args: readonly string[];
  root: string;
  env: NodeJS.ProcessEnv;
  initializationOptions?: unknown;
  timeoutMs: number;
  /** The read-only sandbox to start it in (core/sandbox/confine-read-only.ts); absent: unconfined. */
  confined?: ReadOnlyLaunch;
};

type Pushed = { version: number | undefined; diagnostics: FileDiagnostic[]; sequence: number };
type OpenFile = { version: number; text: string; changedAtSequence: number };

/** `starting` → `ready` → `stopped` (crashed or closed); a stopped client is replaced, never revived. */
export type LspClientState =
  | { type: "starting" }
  | { type: "ready" }
  | { type: "stopped"; reason: string; closedByUs: boolean };

/** A language server; `start` first, `close` always (it shuts the server down, then kills it). */
export class LspClient {
  readonly options: LspClientOptions;
  state: LspClientState = { type: "starting" };
  /** Whether it ever finished initializing (a stop after that is a crash, before it a failed start). */
  wasReady = false;
  private child: ChildProcess | undefined;
  private connection: MessageConnection | undefined;
  private capabilities: ServerCapabilities = {};
  private readonly files = new Map<string, OpenFile>();
  private readonly pushed = new Map<string, Pushed>();
  private sequence = 0;
  /** Answers kept until any file of this server changes (an edit of one file can change another's). */
  private readonly answered = new Map<string, FileDiagnostic[]>();
  private readonly listeners = new Set<() => void>();
  private stderr = "";
  private exited: Promise<void> = Promise.resolve();
  private readonly stopped = new AbortController();

  constructor(options: LspClientOptions) {
    this.options = options;
  }

  /** The file URIs this client has opened. */
  openFiles(): string[] {
    return [...this.files.keys()];
  }

  /**
   * Spawns the server (cwd = root, as the user, read-only under bwrap when `confined`) and
   * initializes it. Resolves `undefined` when ready, else an answer saying why not (the process is
   * then gone).
   */
  async start(): Promise<Exclude<DiagnosticsAnswer, { type: "diagnostics" }> | undefined> {
    const launch = await this.spawnArguments();
    if (typeof launch === "string") {
      this.stop(launch);
      return { type: "unavailable", reason: this.describeFailure(launch) };
    }
    const { root, confined } = this.options;
    const child = spawn(launch.file, launch.args, {
      cwd: root,
      env: launch.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    this.child = child;
    let exitNoted: (reason: string) => void = () => {};
    const failed = new Promise<string>((resolve) => (exitNoted = resolve));
    this.exited = new Promise((resolve) => child.once("close", () => resolve()));
    child.once("error", (error) => {
      const reason = `cannot be started (${error.message})`;
      this.stop(reason);
      exitNoted(reason);
    });
    child.once("exit", (code, exitSignal) => {
      // bwrap reports a program killed by signal N as exit code 128 + N.
      const signal = exitSignal ?? (confined && code !== null && code > 128 ? signalName(code - 128) : undefined);
      const reason = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      this.stop(reason);
      exitNoted(reason);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_KEPT);
    });
    if (!child.stdout || !child.stdin) return { type: "unavailable", reason: this.describeFailure("has no stdio") };
    const connection = createMessageConnection(
      new StreamMessageReader(child.stdout),
      new StreamMessageWriter(child.stdin),
    );
    this.connection = connection;
    this.answerServerRequests(connection);
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => this.onPublish(params));
    connection.onError(() => {});
    connection.listen();
    const rootUri = pathToFileURL(root).href;
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const initialize = connection
      .sendRequest(InitializeRequest.type, {
        // In bwrap's pid namespace gyre's pid names no process (or another one), and a server that
        // watches it would exit at once; there `--die-with-parent` ends the server with gyre instead.
        processId: confined ? null : process.pid,
        clientInfo: { name: "gyre" },
        rootUri,
        workspaceFolders: [{ uri: rootUri, name: root }],
        initializationOptions: this.options.initializationOptions ?? null,
        capabilities: {
          textDocument: {
            synchronization: { dynamicRegistration: false, didSave: false },
            publishDiagnostics: { versionSupport: true },
            diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
          },
          workspace: { configuration: true, workspaceFolders: true, applyEdit: false },
        },
      })
      .then(
        (result) => ({ type: "ready" as const, capabilities: result.capabilities }),
        (error: Error) => ({ type: "failed" as const, reason: `refused to initialize (${error.message})` }),
      );
    const outcome = await Promise.race([
      initialize,
      failed.then((reason) => ({ type: "failed" as const, reason })),
      abortedBy(timeout).then(() => ({ type: "timeout" as const })),
    ]);
    if (outcome.type === "ready") {
      this.capabilities = outcome.capabilities;
      await connection.sendNotification(InitializedNotification.type, {});
      this.state = { type: "ready" };
      this.wasReady = true;
      return undefined;
    }
    // An exit explains a failed request better than the request's own error.
    const reason = this.state.type === "stopped" ? this.state.reason : outcome.type === "failed" ? outcome.reason : "";
    this.stop(outcome.type === "timeout" ? "did not answer" : reason);
    this.kill();
    if (outcome.type === "timeout") return { type: "timeout", timeoutMs: this.options.timeoutMs };
    return { type: "unavailable", reason: this.describeFailure(reason) };
  }

  /** What to spawn: the command itself, or bwrap with the command found on the host; else why not. */
  private async spawnArguments(): Promise<{ file: string; args: string[]; env: NodeJS.ProcessEnv } | string> {
    const { command, args, root, env, confined } = this.options;
    if (!confined) return { file: command, args: [...args], env };
    // Found here rather than by bwrap, so a missing command is said as plainly as without the sandbox.
    const found = command.includes("/")
      ? await access(resolvePath(root, command), constants.X_OK).then(
          () => resolvePath(root, command),
          () => undefined,
        )
      : await findExecutable(command, env.PATH);
    if (!found)
      return `cannot be started (${command} is not an executable file${command.includes("/") ? "" : " on PATH"})`;
    const binds = await privateTmpBinds([found, ...args]);
    return {
      file: confined.prefix.command,
      args: [...withReadOnlyBinds(confined.prefix.args, binds), found, ...args],
      env: { ...env, ...confined.env },
    };
  }

  /** One sentence naming the server, its command and the setting to fix. */
  describeFailure(reason: string): string {
    const { name, command } = this.options;
    const detail = this.stderr.trim().split("\n").at(-1)?.slice(0, 300);
    return (
      `The ${name} language server (command "${command}" from the lsp setting "${name}") ${reason}` +
      `${detail ? `; it said: ${detail}` : ""}. Fix the command or remove lsp.${name} from settings.json.`
    );
  }

  /** Sends the file's text (didOpen the first time, a full-text didChange when it differs). */
  async sync(uri: string, text: string): Promise<void> {
    const connection = this.connection;
    if (!connection || this.state.type !== "ready") return;
    const open = this.files.get(uri);
    if (open?.text === text) return;
    this.answered.clear();
    if (!open) {
      this.files.set(uri, { version: 1, text, changedAtSequence: this.sequence });
      await connection.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri, languageId: languageIdOf(uri), version: 1, text },
      });
      return;
    }
    const version = open.version + 1;
    this.files.set(uri, { version, text, changedAtSequence: this.sequence });
    await connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version },
      contentChanges: [{ text }],
    });
  }

  /** The diagnostics of `uri` as last synced; a timeout or a stopped server is said so, never as clean. */
  async diagnostics(uri: string, signal: AbortSignal): Promise<DiagnosticsAnswer> {
    const cached = this.answered.get(uri);
    if (cached) return { type: "diagnostics", diagnostics: cached };
    const timeoutMs = this.options.timeoutMs;
    const version = this.files.get(uri)?.version;
    // One controller for the wait, so nothing is added to the run's signal past this call.
    const wait = new AbortController();
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const answer = await untilAborted(this.ask(uri, wait.signal), [signal, timeout, this.stopped.signal]);
      if (answer) {
        if (this.files.get(uri)?.version === version) this.answered.set(uri, answer);
        return { type: "diagnostics", diagnostics: answer };
      }
    } catch {
      // A failed request: below, as a stopped server or as no answer.
    } finally {
      wait.abort();
    }
    if (this.state.type === "stopped") {
      return { type: "unavailable", reason: this.describeFailure(`${this.state.reason} before it answered`) };
    }
    signal.throwIfAborted();
    return { type: "timeout", timeoutMs };
  }

  private async ask(uri: string, signal: AbortSignal): Promise<FileDiagnostic[] | undefined> {
    const connection = this.connection;
    if (!connection) return undefined;
    if (this.capabilities.diagnosticProvider) {
      const report = await connection.sendRequest(DocumentDiagnosticRequest.type, { textDocument: { uri } });
      if (report.kind === "full") return keepShown(report.items);
    }
    const commands = this.capabilities.executeCommandProvider?.commands ?? [];
    if (commands.includes(TSSERVER_REQUEST)) {
      const run = (command: string) =>
        connection.sendRequest(ExecuteCommandRequest.type, {
          command: TSSERVER_REQUEST,
          arguments: [command, { file: uri }],
        });
      const [syntactic, semantic] = await Promise.all([
        run("syntacticDiagnosticsSync"),
        run("semanticDiagnosticsSync"),
      ]);
      return [...convertTsserverDiagnostics(syntactic), ...convertTsserverDiagnostics(semantic)];
    }
    return this.waitForPush(uri, signal);
  }

  /** Pushed diagnostics for the synced version, or (unversioned) the last push of a short quiet spell after the change. */
  private async waitForPush(uri: string, signal: AbortSignal): Promise<FileDiagnostic[] | undefined> {
    const open = this.files.get(uri);
    if (!open) return undefined;
    const current = (): Pushed | undefined => {
      const pushed = this.pushed.get(uri);
      if (!pushed) return undefined;
      if (pushed.version !== undefined) return pushed.version >= open.version ? pushed : undefined;
      return pushed.sequence > open.changedAtSequence ? pushed : undefined;
    };
    while (!signal.aborted) {
      const found = current();
      if (found?.version !== undefined) return found.diagnostics;
      if (found) {
        const settled = AbortSignal.any([signal, AbortSignal.timeout(UNVERSIONED_SETTLE_MS)]);
        const before = found.sequence;
        await this.nextPush(settled);
        if (signal.aborted) return undefined;
        if (this.pushed.get(uri)?.sequence === before) return found.diagnostics;
        continue;
      }
      await this.nextPush(signal);
    }
    return undefined;
  }

  private nextPush(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.listeners.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      this.listeners.add(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  private onPublish(params: PublishDiagnosticsParams): void {
    this.sequence += 1;
    this.pushed.set(params.uri, {
      version: params.version,
      diagnostics: keepShown(params.diagnostics),
      sequence: this.sequence,
    });
    for (const listener of [...this.listeners]) listener();
  }

  /** What servers ask of their client: settings (none), folders, registrations; edits are refused. */
  private answerServerRequests(connection: MessageConnection): void {
    const rootUri = pathToFileURL(this.options.root).href;
    connection.onRequest("workspace/configuration", (params: { items?: unknown[] }) =>
      (params.items ?? []).map(() => null),
    );
    connection.onRequest("workspace/workspaceFolders", () => [{ uri: rootUri, name: this.options.root }]);
    connection.onRequest("client/registerCapability", () => null);
    connection.onRequest("client/unregisterCapability", () => null);
    connection.onRequest("window/workDoneProgress/create", () => null);
    connection.onRequest("window/showMessageRequest", () => null);
    connection.onRequest("workspace/applyEdit", () => ({
      applied: false,
      failureReason: "gyre takes no edits from language servers.",
    }));
  }

  private stop(reason: string): void {
    if (this.state.type === "stopped") return;
    this.state = { type: "stopped", reason, closedByUs: false };
    this.stopped.abort();
    this.connection?.dispose();
    for (const listener of [...this.listeners]) listener();
  }

  private kill(): void {
    const pid = this.child?.pid;
    if (pid !== undefined && this.child?.exitCode === null) signalProcessGroup(pid, "SIGKILL");
  }

  /** Asks the server to shut down and exit (bounded), then kills its process group. Never throws. */
  async close(): Promise<void> {
    const connection = this.connection;
    if (this.state.type === "ready" && connection) {
      this.state = { type: "stopped", reason: "was closed", closedByUs: true };
      const limit = AbortSignal.timeout(1000);
      await Promise.race([connection.sendRequest(ShutdownRequest.type).catch(() => {}), abortedBy(limit)]);
      await connection.sendNotification(ExitNotification.type).catch(() => {});
      await Promise.race([this.exited, abortedBy(limit)]);
    }
    this.state = { type: "stopped", reason: "was closed", closedByUs: true };
    this.stopped.abort();
    this.connection?.dispose();
    this.kill();
    await Promise.race([this.exited, abortedBy(AbortSignal.timeout(1000))]);
  }
}

/** Errors, warnings and information; hints (faded unused names) are not news about an edit. */
function keepShown(diagnostics: readonly Diagnostic[]): FileDiagnostic[] {
  return diagnostics.flatMap((diagnostic) => convertDiagnostic(diagnostic) ?? []);
}

function signalName(number: number): string | undefined {
  return Object.entries(osConstants.signals).find(([, value]) => value === number)?.[0];
}

function abortedBy(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(undefined);
    else signal.addEventListener("abort", () => resolve(undefined), { once: true });
  });
}

/**
 * `promise`, or undefined once one of `signals` aborts; its listeners are removed when it settles,
 * so the run's signal and the client's own do not gather one per call over a long session.
 */
async function untilAborted<T>(promise: Promise<T>, signals: readonly AbortSignal[]): Promise<T | undefined> {
  let stop = () => {};
  const aborted = new Promise<undefined>((resolve) => {
    const onAbort = () => resolve(undefined);
    stop = () => {
      for (const signal of signals) signal.removeEventListener("abort", onAbort);
    };
    for (const signal of signals) {
      if (signal.aborted) resolve(undefined);
      signal.addEventListener("abort", onAbort, { once: true });
    }
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    stop();
  }
}

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { readLines, writeRawJsonLine as writeJsonLine } from "./jsonl.js";
import type { RpcCommand, RpcEvent, RpcResponse, RpcUiRequest } from "./rpc-types.js";

export type { RpcEvent } from "./rpc-types.js";

type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;

export type RpcClientOptions = {
  /** Path of the gyre bin (default: the `gyre` on PATH). */
  command?: string;
  /**
   * Extra CLI arguments (provider, model, …); `--mode rpc` is added after them, so `command` may
   * be `node` with the bin (and Node's own flags) first: `{ command: "node", args: [bin, …] }`.
   */
  args?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Answers extension questions; without it every question is cancelled. */
  onUiRequest?: (request: RpcUiRequest) => Promise<{ value?: unknown; cancelled?: boolean }>;
};

/**
 * A typed client for `gyre --mode rpc`: `send()` resolves with the command's response
 * (matched by id), `onEvent` receives every event, `close()` ends stdin and waits for exit.
 */
export class RpcClient {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<
    string,
    { command: string; resolve: (response: RpcResponse) => void; reject: (error: Error) => void }
  >();
  private readonly listeners = new Set<(event: RpcEvent) => void>();
  private nextId = 1;
  private stderrText = "";
  readonly exited: Promise<number | null>;

  constructor(private readonly options: RpcClientOptions = {}) {
    const command = options.command ?? "gyre";
    const isScript = command.endsWith(".js") || command.endsWith(".mjs");
    const argv = [...(isScript ? [command] : []), ...(options.args ?? []), "--mode", "rpc"];
    this.child = spawn(isScript ? process.execPath : command, argv, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    // Writing to a server that just died fails with EPIPE; send() reports that as the exit instead.
    this.child.stdin.on("error", () => {});
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      this.stderrText += chunk;
    });
    this.exited = new Promise((resolve) =>
      this.child.on("close", (code, signal) => {
        this.rejectPending(code, signal);
        resolve(code);
      }),
    );
    // A command that cannot be spawned fails every send() instead of leaving it pending.
    this.child.on("error", (error) => this.rejectPending(null, null, error.message));
    readLines(
      this.child.stdout,
      (line) => this.handleLine(line),
      () => {},
    );
  }

  /** What the server wrote to stderr so far (diagnostics). */
  get stderr(): string {
    return this.stderrText;
  }

  /**
   * Sends a command and resolves with its response. Rejects when the server exits (or cannot be
   * started) before answering; a failed command is a response with `success: false`, not a rejection.
   */
  send(command: WithoutId<RpcCommand>): Promise<RpcResponse> {
    const id = `c${this.nextId++}`;
    return new Promise((resolve, reject) => {
      if (this.closedBecause !== undefined) {
        reject(new Error(`Cannot send ${command.type}: ${this.closedBecause}`));
        return;
      }
      this.pending.set(id, { command: command.type, resolve, reject });
      writeJsonLine(this.child.stdin, { ...command, id });
    });
  }

  private closedBecause: string | undefined;

  private rejectPending(code: number | null, signal: NodeJS.Signals | null, cause?: string): void {
    const how = cause ?? (signal ? `was killed by ${signal}` : `exited with code ${code}`);
    const stderr = this.stderrText.trim().split("\n").slice(-3).join(" ");
    this.closedBecause = `the gyre RPC server ${how}${stderr ? ` (stderr: ${stderr})` : ""}`;
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      waiting.reject(new Error(`No response to ${waiting.command}: ${this.closedBecause}`));
    }
  }

  /** Subscribes to events; returns an unsubscribe function. */
  onEvent(listener: (event: RpcEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the first event for which `predicate` is true. */
  waitForEvent(predicate: (event: RpcEvent) => boolean): Promise<RpcEvent> {
    return new Promise((resolve) => {
      const unsubscribe = this.onEvent((event) => {
        if (predicate(event)) {
          unsubscribe();
          resolve(event);
        }
      });
    });
  }

  /** Ends stdin (the server aborts work and exits) and waits for the exit code. */
  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }

  private handleLine(line: string): void {
    let message: RpcEvent | RpcResponse;
    try {
      message = JSON.parse(line) as RpcEvent | RpcResponse;
    } catch {
      return;
    }
    if (message.type === "response") {
      const waiting = message.id ? this.pending.get(message.id) : undefined;
      if (waiting && message.id) {
        this.pending.delete(message.id);
        waiting.resolve(message);
      }
      return;
    }
    if (message.type === "ui_request") void this.answer(message);
    for (const listener of this.listeners) listener(message);
  }

  private async answer(request: RpcUiRequest): Promise<void> {
    let answer: { value?: unknown; cancelled?: boolean } = { cancelled: true };
    try {
      if (this.options.onUiRequest) answer = await this.options.onUiRequest(request);
    } catch {
      // A failing answerer declines, so the server is never left waiting.
    }
    writeJsonLine(this.child.stdin, { type: "ui_response", requestId: request.requestId, ...answer });
  }
}

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { readLines, writeRawJsonLine as writeJsonLine } from "./jsonl.js";
import type { RpcCommand, RpcResponse, RpcUiRequest } from "./rpc-types.js";

type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;
export type RpcEvent = { type: string; [key: string]: unknown };

export type RpcClientOptions = {
  /** Path of the gyre bin (default: the `gyre` on PATH). */
  command?: string;
  /** Extra CLI arguments (provider, model, …); `--mode rpc` is added. */
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
  private readonly pending = new Map<string, (response: RpcResponse) => void>();
  private readonly listeners = new Set<(event: RpcEvent) => void>();
  private nextId = 1;
  private stderrText = "";
  readonly exited: Promise<number | null>;

  constructor(private readonly options: RpcClientOptions = {}) {
    const command = options.command ?? "gyre";
    const isScript = command.endsWith(".js") || command.endsWith(".mjs");
    const argv = [...(isScript ? [command] : []), "--mode", "rpc", ...(options.args ?? [])];
    this.child = spawn(isScript ? process.execPath : command, argv, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      this.stderrText += chunk;
    });
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
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

  /** Sends a command and resolves with its response. */
  send(command: WithoutId<RpcCommand>): Promise<RpcResponse> {
    const id = `c${this.nextId++}`;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      writeJsonLine(this.child.stdin, { ...command, id });
    });
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
    let message: RpcEvent;
    try {
      message = JSON.parse(line) as RpcEvent;
    } catch {
      return;
    }
    if (message.type === "response") {
      const response = message as unknown as RpcResponse;
      const resolve = response.id ? this.pending.get(response.id) : undefined;
      if (resolve && response.id) {
        this.pending.delete(response.id);
        resolve(response);
        return;
      }
    }
    if (message.type === "ui_request") void this.answer(message as unknown as RpcUiRequest);
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

/**
 * The language servers of a session (docs/lsp.md): one per (server setting, project root),
 * started on the first write or edit of a file it serves, restarted on the next use after a crash
 * (a few times at most), closed by the session's `dispose()`. It takes a file's diagnostics before
 * an edit and after it, and says what the edit changed. The client, and with it vscode-jsonrpc, is
 * imported on the first start: a session that never edits such a file never loads it.
 */
import { readFile, stat } from "node:fs/promises";
import * as nodePath from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BashSandbox } from "../sandbox/bash-sandbox.js";
import { createPathPolicy, isWithin, type PathPolicy } from "../tools/path-policy.js";
import { createNodeFileSystem } from "../tools/tool-fs.js";
import { describeEditDiagnostics, listDiagnostics, timeoutSentence } from "./compare-diagnostics.js";
import type { LspClient } from "./lsp-client.js";
import {
  DEFAULT_LSP_TIMEOUT_MS,
  type DiagnosticsAnswer,
  type FileDiagnostic,
  type LspServerSettings,
} from "./types.js";

/** A server that keeps stopping is left stopped after this many restarts in one session. */
const MAX_RESTARTS = 3;

export type LspServiceOptions = {
  /** The `lsp` setting. */
  servers: Readonly<Record<string, LspServerSettings>>;
  /** The workspace: files outside it get no diagnostics; roots are looked for up to it. */
  cwd: string;
  /** The servers' environment (they run as the user). */
  env: NodeJS.ProcessEnv;
  /**
   * The session's safety, for its sandbox: servers start read-only under it
   * (core/sandbox/confine-read-only.ts), unconfined only when it is off. Absent: unconfined.
   */
  safety?: { sandbox: Pick<BashSandbox, "confineReadOnly"> };
};

/** What `before` learnt about a file, for `after`. */
export type EditWatch = {
  realPath: string;
  display: string;
  slot: Slot;
  /** The file's diagnostics before the edit; undefined when the server gave none in time. */
  before: FileDiagnostic[] | undefined;
  notes: string[];
};

type Slot = {
  name: string;
  settings: LspServerSettings;
  root: string;
  client: LspClient | undefined;
  launching: Promise<DiagnosticsAnswer | undefined> | undefined;
  restarts: number;
};

type Obtained = { client: LspClient; notes: string[] } | { failure: DiagnosticsAnswer; notes: string[] };

/** The session's language servers. `close()` when the session ends. */
export class LspService {
  private readonly options: LspServiceOptions;
  private readonly policy: PathPolicy;
  private readonly slots = new Map<string, Slot>();
  private closed = false;

  constructor(options: LspServiceOptions) {
    this.options = options;
    this.policy = createPathPolicy({ cwd: options.cwd, fs: createNodeFileSystem() });
  }

  /** The configured servers in one line, for the diagnostics tool's description. */
  describeServers(): string {
    return Object.entries(this.options.servers)
      .map(([name, server]) => `${name} (${server.extensions.join(", ")})`)
      .join(", ");
  }

  /**
   * Before a write or edit of `path`: the file's diagnostics now (a new file has none). Undefined
   * when no server serves the file or the path is not a workspace file (the tool reports that).
   */
  async before(path: string, signal: AbortSignal): Promise<EditWatch | undefined> {
    const target = await this.locate(path);
    if (!target) return undefined;
    const { slot, realPath, display } = target;
    const text = await readText(realPath);
    if (text === undefined) return { realPath, display, slot, before: [], notes: [] };
    const obtained = await this.obtain(slot);
    if ("failure" in obtained) return { realPath, display, slot, before: undefined, notes: obtained.notes };
    const answer = await this.ask(obtained.client, realPath, text, signal);
    const before = answer.type === "diagnostics" ? answer.diagnostics : undefined;
    return { realPath, display, slot, before, notes: obtained.notes };
  }

  /** After the edit: the block the tool result ends with (docs/lsp.md). */
  async after(watch: EditWatch, signal: AbortSignal): Promise<{ text: string; introduced: number; fixed: number }> {
    const obtained = await this.obtain(watch.slot);
    const notes = [...watch.notes, ...obtained.notes];
    const text = await readText(watch.realPath);
    let after: DiagnosticsAnswer;
    if ("failure" in obtained) after = obtained.failure;
    else if (text === undefined) after = { type: "diagnostics", diagnostics: [] };
    else after = await this.ask(obtained.client, watch.realPath, text, signal);
    return describeEditDiagnostics({ path: watch.display, before: watch.before, after, notes });
  }

  /** The diagnostics tool: one file's current diagnostics, or those of every file a server has open. */
  async describeCurrent(path: string | undefined, signal: AbortSignal): Promise<string> {
    if (path !== undefined) {
      const target = await this.locate(path);
      if (!target) {
        return `No language server of the lsp setting serves ${path}; configured: ${this.describeServers()}.`;
      }
      return this.describeFile(target.slot, target.realPath, target.display, signal);
    }
    const parts: string[] = [];
    for (const slot of this.slots.values()) {
      for (const uri of slot.client?.openFiles() ?? []) {
        const realPath = fileURLToPath(uri);
        parts.push(await this.describeFile(slot, realPath, await this.policy.display(realPath), signal));
      }
    }
    if (parts.length > 0) return parts.join("\n\n");
    return (
      "No language server has a file open yet: they start with the first write or edit of a file they serve. " +
      "Call diagnostics with a path to check one file."
    );
  }

  private async describeFile(slot: Slot, realPath: string, display: string, signal: AbortSignal): Promise<string> {
    const text = await readText(realPath);
    if (text === undefined) return `${display} does not exist.`;
    const obtained = await this.obtain(slot);
    const answer = "failure" in obtained ? obtained.failure : await this.ask(obtained.client, realPath, text, signal);
    const lines = [...obtained.notes];
    if (answer.type === "timeout") lines.push(`${display}: ${timeoutSentence(answer.timeoutMs)}`);
    else if (answer.type === "unavailable") lines.push(answer.reason);
    else if (answer.diagnostics.length === 0) lines.push(`${display}: no diagnostics.`);
    else {
      const count = answer.diagnostics.length;
      lines.push(
        `${display}: ${count} diagnostic${count === 1 ? "" : "s"}:`,
        ...listDiagnostics(display, answer.diagnostics),
      );
    }
    return lines.join("\n");
  }

  private async ask(
    client: LspClient,
    realPath: string,
    text: string,
    signal: AbortSignal,
  ): Promise<DiagnosticsAnswer> {
    const uri = pathToFileURL(realPath).href;
    await client.sync(uri, text);
    return client.diagnostics(uri, signal);
  }

  /** The server and root for a workspace file, by its ending; undefined when none serves it. */
  private async locate(path: string): Promise<{ slot: Slot; realPath: string; display: string } | undefined> {
    const resolved = await this.policy.resolve(path).catch(() => undefined);
    if (!resolved) return undefined;
    const workspace = await this.policy.workspaceRoot();
    if (!isWithin(workspace, resolved.realPath)) return undefined;
    const entry = Object.entries(this.options.servers).find(([, server]) =>
      server.extensions.some((ending) => resolved.realPath.endsWith(ending)),
    );
    if (!entry) return undefined;
    const [name, settings] = entry;
    const root = await findRoot(nodePath.dirname(resolved.realPath), settings.rootMarkers ?? [], workspace);
    const key = `${name}\0${root}`;
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { name, settings, root, client: undefined, launching: undefined, restarts: 0 };
      this.slots.set(key, slot);
    }
    return { slot, realPath: resolved.realPath, display: resolved.displayPath };
  }

  /** The slot's running client: started on first use, restarted once per use after it stopped. */
  private async obtain(slot: Slot): Promise<Obtained> {
    const notes: string[] = [];
    if (this.closed) {
      return { failure: { type: "unavailable", reason: "The session is closing; no diagnostics were taken." }, notes };
    }
    const state = slot.client?.state;
    if (!slot.launching || (state?.type === "stopped" && !state.closedByUs)) {
      if (slot.client) {
        const { reason } = state?.type === "stopped" ? state : { reason: "stopped" };
        if (slot.restarts >= MAX_RESTARTS) {
          const failure = slot.client.describeFailure(
            `${reason}; it stopped ${slot.restarts + 1} times, so gyre no longer restarts it in this session`,
          );
          return { failure: { type: "unavailable", reason: failure }, notes };
        }
        slot.restarts += 1;
        if (slot.client.wasReady)
          notes.push(`The ${slot.name} language server had stopped (${reason}); gyre restarted it.`);
      }
      slot.launching = this.launch(slot);
    }
    const failure = await slot.launching;
    if (failure || !slot.client) return { failure: failure ?? { type: "unavailable", reason: "No server." }, notes };
    return { client: slot.client, notes };
  }

  private async launch(slot: Slot): Promise<DiagnosticsAnswer | undefined> {
    // Here, not at the top: vscode-jsonrpc loads only when a server starts (start-up time).
    const { LspClient } = await import("./lsp-client.js");
    const confinement = (await this.options.safety?.sandbox.confineReadOnly(slot.root)) ?? {
      ok: true,
      launch: undefined,
    };
    if (!confinement.ok) {
      const reason = `The ${slot.name} language server (lsp setting "${slot.name}") was not started: ${confinement.error}.`;
      return { type: "unavailable", reason };
    }
    const client = new LspClient({
      name: slot.name,
      command: slot.settings.command,
      args: slot.settings.args ?? [],
      root: slot.root,
      env: this.options.env,
      initializationOptions: slot.settings.initializationOptions,
      timeoutMs: slot.settings.timeoutMs ?? DEFAULT_LSP_TIMEOUT_MS,
      ...(confinement.launch ? { confined: confinement.launch } : {}),
    });
    slot.client = client;
    return client.start();
  }

  /** Shuts every server down (shutdown and exit, then a kill). Never throws. */
  async close(): Promise<void> {
    this.closed = true;
    const launches = [...this.slots.values()].map((slot) => slot.launching?.catch(() => undefined));
    await Promise.all(launches);
    await Promise.all([...this.slots.values()].map((slot) => slot.client?.close()));
  }
}

/** The nearest folder from `dir` up to `workspace` holding one of `markers`; else the workspace. */
async function findRoot(dir: string, markers: readonly string[], workspace: string): Promise<string> {
  let current = dir;
  while (isWithin(workspace, current)) {
    for (const marker of markers) {
      if (
        await stat(nodePath.join(current, marker)).then(
          () => true,
          () => false,
        )
      )
        return current;
    }
    if (current === workspace) break;
    current = nodePath.dirname(current);
  }
  return workspace;
}

/** The file's text, or undefined when it does not exist (a deleted or not yet written file). */
async function readText(path: string): Promise<string | undefined> {
  return readFile(path, "utf8").catch(() => undefined);
}

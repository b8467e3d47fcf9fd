import type {
  AfterToolCallInput,
  AfterToolCallResult,
  AgentMessage,
  AnyAgentTool,
  BeforeToolCallInput,
  BeforeToolCallResult,
} from "@gyre/agent";
import { loadValidateArguments } from "@gyre/agent";
import type { ImageContent, Model } from "@gyre/ai";
import type { UserInterface } from "../user-interface.js";
import { watchExtension } from "./stall-watchdog.js";
import type {
  ExtensionCommand,
  ExtensionContext,
  ExtensionEntry,
  ExtensionEventMap,
  ExtensionEventName,
  ExtensionFlag,
  ExtensionMessage,
  ExtensionMode,
  ExtensionResultMap,
  ExtensionUI,
} from "./types.js";

/** The default time a handler may take before it is reported and skipped. */
export const DEFAULT_HANDLER_TIMEOUT_MS = 5_000;

type LooseHandler = (event: unknown, context: ExtensionContext) => unknown;

/** One loaded extension and what it registered. */
export type LoadedExtension = {
  path: string;
  handlers: Map<ExtensionEventName, LooseHandler[]>;
  tools: AnyAgentTool[];
  commands: Map<string, ExtensionCommand>;
  flags: Map<string, ExtensionFlag>;
  systemPrompts: string[];
  /** Questions waiting for the user; the handler timeout pauses while there are any. */
  pendingQuestions: number;
  /** Questions declined because nobody could answer (headless); lets a block say why. */
  headlessRefusals: number;
};

/** What the session lends extensions once it exists (extensions load before it). */
export type ExtensionHost = {
  sessionId(): string;
  sessionFile(): string | undefined;
  model(): Model;
  isIdle(): boolean;
  abort(): void;
  appendEntry(customType: string, data: unknown): void;
  getEntries(customType: string): ExtensionEntry[];
  sendMessage(message: ExtensionMessage, options: { deliverAs?: "steer" | "followUp" }): Promise<void>;
  /** Shows a failure to the user as a session notice (the mode decides where). */
  notice(message: string): void;
};

export type ExtensionRunnerOptions = {
  cwd: string;
  mode: ExtensionMode;
  ui: UserInterface;
  /** Per-handler timeout; default `DEFAULT_HANDLER_TIMEOUT_MS`. */
  timeoutMs?: number;
  /**
   * Where failures are reported (one sentence each) until a session is bound; from then on they
   * become the session's notices. Core never writes to stderr itself.
   */
  report: (message: string) => void;
};

type Outcome = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Dispatches events to extensions' handlers in load order. A handler that throws, rejects or
 * runs past the timeout is reported and skipped for that event; nothing an extension does
 * stops the run. Hook results chain: each handler sees what the previous one returned.
 */
export class ExtensionRunner {
  readonly extensions: LoadedExtension[] = [];
  readonly cwd: string;
  readonly mode: ExtensionMode;
  private host: ExtensionHost | undefined;
  private flagValues = new Map<string, boolean | string>();
  private readonly timeoutMs: number;
  private readonly reportLine: (message: string) => void;

  constructor(private readonly options: ExtensionRunnerOptions) {
    this.cwd = options.cwd;
    this.mode = options.mode;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS;
    this.reportLine = options.report;
  }

  /** Adds an (empty) extension record for `path`; the loader fills it through the API. */
  addExtension(path: string): LoadedExtension {
    const extension: LoadedExtension = {
      path,
      handlers: new Map(),
      tools: [],
      commands: new Map(),
      flags: new Map(),
      systemPrompts: [],
      pendingQuestions: 0,
      headlessRefusals: 0,
    };
    this.extensions.push(extension);
    return extension;
  }

  /** Connects the session; until then, session actions throw with a sentence saying when to call them. */
  bind(host: ExtensionHost): void {
    this.host = host;
  }

  get boundHost(): ExtensionHost | undefined {
    return this.host;
  }

  report(message: string): void {
    if (this.host) this.host.notice(message);
    else this.reportLine(message);
  }

  hasHandlers(event: ExtensionEventName): boolean {
    return this.extensions.some((extension) => (extension.handlers.get(event)?.length ?? 0) > 0);
  }

  /** Tools in registration order; a later one with the same name wins. */
  getTools(): AnyAgentTool[] {
    const byName = new Map<string, AnyAgentTool>();
    for (const extension of this.extensions) for (const tool of extension.tools) byName.set(tool.name, tool);
    return [...byName.values()];
  }

  getCommands(): Map<string, { extension: LoadedExtension; command: ExtensionCommand }> {
    const commands = new Map<string, { extension: LoadedExtension; command: ExtensionCommand }>();
    for (const extension of this.extensions)
      for (const [name, command] of extension.commands) commands.set(name, { extension, command });
    return commands;
  }

  getFlags(): Map<string, ExtensionFlag> {
    const flags = new Map<string, ExtensionFlag>();
    for (const extension of this.extensions) for (const [name, flag] of extension.flags) flags.set(name, flag);
    return flags;
  }

  /** Sets the parsed values of extension flags (absent ones fall back to their default). */
  setFlagValues(values: Record<string, boolean | string>): void {
    this.flagValues = new Map(Object.entries(values));
  }

  getFlag(name: string): boolean | string | undefined {
    return this.flagValues.get(name) ?? this.getFlags().get(name)?.default;
  }

  getSystemPromptAdditions(): string[] {
    return this.extensions.flatMap((extension) => extension.systemPrompts);
  }

  /** Delivers a notification event (no result) to every handler of it. */
  async emit(event: ExtensionEventMap[ExtensionEventName]): Promise<void> {
    for (const { extension, handler } of this.handlersOf(event.type)) {
      await this.invoke(extension, event.type, (context) => handler(event, context));
    }
  }

  /** Runs a command's handler; errors are reported, never thrown. No timeout: commands may run a whole turn. */
  async runCommand(name: string, args: string): Promise<void> {
    const entry = this.getCommands().get(name);
    if (!entry) return;
    await this.invoke(entry.extension, `/${name}`, (context) => entry.command.handler(args, context), {
      timeoutMs: Infinity,
    });
  }

  /**
   * `tool_call`: the first block wins; rewritten arguments are validated again and passed on. A
   * handler that throws or times out blocks the call (fail closed), with the reason for the model.
   */
  async beforeToolCall(input: BeforeToolCallInput): Promise<BeforeToolCallResult | undefined> {
    const toolName = input.toolCall.name;
    // Each handler sees what the previous ones made of the arguments; the loop gets them back as `args`.
    let args: Record<string, unknown> | undefined;
    for (const { extension, handler } of this.handlersOf("tool_call")) {
      const refusalsBefore = extension.headlessRefusals;
      const event: ExtensionEventMap["tool_call"] = {
        type: "tool_call",
        toolCallId: input.toolCall.id,
        toolName,
        args: structuredClone(args ?? input.args),
      };
      // The report says what happened: the call is blocked, not the gate skipped (the run goes on without it).
      const outcome = await this.invoke(extension, "tool_call", (context) => handler(event, context), {
        consequence: `blocked the ${toolName} call (a gate that cannot decide fails closed)`,
      });
      // A gate that cannot answer blocks (docs/design/safety.md#approvals): letting the call through would fail open.
      if (!outcome.ok) {
        return {
          block: true,
          reason: `The ${toolName} call was blocked because the tool_call gate of the extension ${extension.path} could not decide (${outcome.error}). Tell the user; do not retry it until the extension is fixed.`,
        };
      }
      if (!isObject(outcome.value)) continue;
      const verdict = outcome.value as ExtensionResultMap["tool_call"];
      if (verdict.block) {
        let reason = verdict.reason ?? `The extension ${extension.path} blocked this ${toolName} call.`;
        if (extension.headlessRefusals > refusalsBefore)
          reason +=
            " (Refused because nobody could confirm: gyre is running headless; ask the user to run it interactively or allow it another way.)";
        return { block: true, reason };
      }
      if (isObject(verdict.args)) {
        const tool = input.context.tools?.find((candidate) => candidate.name === toolName);
        const checked = tool
          ? (await loadValidateArguments())(tool.parameters, verdict.args)
          : { ok: true as const, value: verdict.args };
        if (!checked.ok) {
          return {
            block: true,
            reason: `The extension ${extension.path} rewrote the ${toolName} arguments into invalid ones: ${checked.problems.join("; ")}`,
          };
        }
        args = checked.value;
      }
    }
    return args ? { args } : undefined;
  }

  /** `tool_result`: each handler may replace content, details or isError; later handlers see the change. */
  async afterToolCall(input: AfterToolCallInput): Promise<AfterToolCallResult | undefined> {
    let patched: AfterToolCallResult | undefined;
    let current = { content: input.result.content, details: input.result.details, isError: input.isError };
    for (const { extension, handler } of this.handlersOf("tool_result")) {
      const event: ExtensionEventMap["tool_result"] = {
        type: "tool_result",
        toolCallId: input.toolCall.id,
        toolName: input.toolCall.name,
        args: input.args,
        ...current,
      };
      const outcome = await this.invoke(extension, "tool_result", (context) => handler(event, context));
      if (!outcome.ok || !isObject(outcome.value)) continue;
      const patch = outcome.value as ExtensionResultMap["tool_result"];
      current = {
        content: Array.isArray(patch.content) ? patch.content : current.content,
        details: "details" in patch ? patch.details : current.details,
        isError: typeof patch.isError === "boolean" ? patch.isError : current.isError,
      };
      patched = { ...current };
    }
    return patched;
  }

  /** `context`: each handler may replace the messages sent to the model for this call. */
  async transformContext(messages: AgentMessage[]): Promise<AgentMessage[]> {
    let current = messages;
    for (const { extension, handler } of this.handlersOf("context")) {
      const event: ExtensionEventMap["context"] = { type: "context", messages: [...current] };
      const outcome = await this.invoke(extension, "context", (context) => handler(event, context));
      if (!outcome.ok || !isObject(outcome.value)) continue;
      const result = outcome.value as ExtensionResultMap["context"];
      if (Array.isArray(result.messages)) current = result.messages;
    }
    return current;
  }

  /** `before_agent_start`: returns the system prompt for this run. */
  async beforeAgentStart(input: { prompt: string; images: ImageContent[]; systemPrompt: string }): Promise<string> {
    let systemPrompt = input.systemPrompt;
    for (const { extension, handler } of this.handlersOf("before_agent_start")) {
      const event: ExtensionEventMap["before_agent_start"] = { type: "before_agent_start", ...input, systemPrompt };
      const outcome = await this.invoke(extension, "before_agent_start", (context) => handler(event, context));
      if (!outcome.ok || !isObject(outcome.value)) continue;
      const result = outcome.value as ExtensionResultMap["before_agent_start"];
      if (typeof result.systemPrompt === "string") systemPrompt = result.systemPrompt;
    }
    return systemPrompt;
  }

  /** The UI an extension sees: counts its open questions and says so when nobody can answer. */
  createUserInterface(extension: LoadedExtension): ExtensionUI {
    const ui = this.options.ui;
    const ask = async <T>(title: string, question: () => Promise<T>): Promise<T> => {
      if (!ui.interactive) {
        extension.headlessRefusals++;
        this.report(`${extension.path} asked "${title}", but nobody can answer in ${this.mode} mode; treated as no.`);
      }
      extension.pendingQuestions++;
      try {
        return await question();
      } finally {
        extension.pendingQuestions--;
      }
    };
    const withStatus = ui as UserInterface & { setStatus?: (key: string, text: string | undefined) => void };
    return {
      get interactive() {
        return ui.interactive;
      },
      confirm: (request) => ask(request.title, () => ui.confirm(request)),
      select: (request) => ask(request.title, () => ui.select(request)),
      input: (request) => ask(request.title, () => ui.input(request)),
      notify: (message, level) => ui.notify(message, level),
      // A status is a live line of a screen (or an RPC event); print and JSON runs have neither,
      // and turning it into a notice put "gyre: guard: guard: on" on every run's stderr.
      setStatus: (key, text) => withStatus.setStatus?.(key, text),
    };
  }

  /**
   * Runs one handler with error isolation and the timeout (paused while it waits for the user).
   * Resolves `{ ok: false }` after reporting when it throws, rejects or times out; the report ends
   * with `consequence` (default "skipped it"), what the caller does about the failure.
   */
  async invoke(
    extension: LoadedExtension,
    label: string,
    run: (context: ExtensionContext) => unknown,
    options: { timeoutMs?: number; consequence?: string } = {},
  ): Promise<Outcome> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const consequence = options.consequence ?? "skipped it";
    const controller = new AbortController();
    const context = this.createContext(extension, controller.signal);
    const unwatch = watchExtension(extension.path, label);
    let timer: NodeJS.Timeout | undefined;
    // A timer rather than AbortSignal.timeout: the clock must be re-armed while a question is open.
    const timedOut = new Promise<"timeout">((resolve) => {
      if (!Number.isFinite(timeoutMs)) return;
      const arm = () => {
        timer = setTimeout(() => (extension.pendingQuestions > 0 ? arm() : resolve("timeout")), timeoutMs);
      };
      arm();
    });
    try {
      const work = Promise.resolve()
        .then(() => run(context))
        .then((value) => ({ value }));
      const outcome = await Promise.race([work, timedOut]);
      if (outcome === "timeout") {
        controller.abort(new Error(`timed out after ${timeoutMs} ms`));
        this.report(`${extension.path}: the "${label}" handler did not finish within ${timeoutMs} ms; ${consequence}.`);
        return { ok: false, error: `it did not finish within ${timeoutMs} ms` };
      }
      return { ok: true, value: outcome.value };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.report(`${extension.path}: the "${label}" handler failed: ${message}; ${consequence}.`);
      return { ok: false, error: `it failed: ${message}` };
    } finally {
      clearTimeout(timer);
      unwatch();
    }
  }

  private createContext(extension: LoadedExtension, signal: AbortSignal): ExtensionContext {
    const host = this.host;
    return {
      ui: this.createUserInterface(extension),
      cwd: this.cwd,
      mode: this.mode,
      sessionId: host?.sessionId(),
      model: host?.model(),
      signal,
      isIdle: () => host?.isIdle() ?? true,
      abort: () => host?.abort(),
    };
  }

  private *handlersOf(event: ExtensionEventName): Generator<{ extension: LoadedExtension; handler: LooseHandler }> {
    for (const extension of this.extensions) {
      for (const handler of extension.handlers.get(event) ?? []) yield { extension, handler };
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

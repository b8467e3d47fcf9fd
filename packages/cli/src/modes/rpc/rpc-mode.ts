import type { Readable, Writable } from "node:stream";
import { type AgentSession, SessionBusyError } from "../../core/agent-session.js";
import { resolveApiKey } from "../../core/config/resolve-api-key.js";
import { loadSchemaChecker } from "../../core/config/schema-check.js";
import type { ApprovalAnswer, UserInterface } from "../../core/user-interface.js";
import { QuickSwitch, type ScopedModel } from "../model-cycle.js";
import { readLines, tooLongResponse, writeJsonLine } from "./jsonl.js";
import {
  parseRpcCommand,
  type RpcCommand,
  type RpcResponse,
  type RpcUiNotice,
  type RpcUiRequest,
} from "./rpc-types.js";

export type RpcModeOptions = {
  session: AgentSession;
  env: NodeJS.ProcessEnv;
  stdin: Readable;
  stdout: Writable;
  /** The interface extensions were given (from `createRpcUserInterface`); `ui_response` answers it. */
  ui?: RpcUserInterface;
  /** `--models`: the list `cycle_model` goes through; without it, every model with a key. */
  modelScope?: readonly ScopedModel[];
};

type UiAnswer = { value?: unknown; cancelled?: boolean };

/** A `UserInterface` whose questions go to the RPC client as `ui_request` events. */
export type RpcUserInterface = UserInterface & {
  setStatus(key: string, text: string | undefined): void;
  /** Resolves the question `requestId`; false when none with that id is waiting. */
  answer(requestId: string, answer: UiAnswer): boolean;
  /** Resolves the `approval_request` `id`; false when none with that id is waiting. */
  answerApproval(id: string, answer: ApprovalAnswer): boolean;
  /** Cancels every waiting question (the client went away); waiting approvals are denied. */
  cancelAll(): void;
};

/**
 * The RPC side of the ui sub-protocol: each question is written as
 * `{"type":"ui_request","requestId","method","title",...}` and waits for a `ui_response`
 * command with that `requestId` (`value`, or `cancelled: true`). A cancelled or mistyped answer
 * is a no (`confirm` false, `select`/`input` undefined). `notify` and `setStatus` are one-way
 * `notify` / `status` events.
 */
export function createRpcUserInterface(
  stdout: Writable,
  /** How long a question waits for its answer before it counts as a no (default 5 min, `GYRE_UI_TIMEOUT_MS`). */
  timeoutMs = Number(process.env.GYRE_UI_TIMEOUT_MS) || 300_000,
): RpcUserInterface {
  const waiting = new Map<string, (answer: UiAnswer) => void>();
  const approvals = new Map<string, (answer: ApprovalAnswer) => void>();
  let next = 1;
  const ask = (request: Omit<RpcUiRequest, "type" | "requestId">, signal?: AbortSignal) =>
    new Promise<UiAnswer>((resolve) => {
      const requestId = `ui-${next++}`;
      waiting.set(requestId, resolve);
      // A client that never answers must not hold the run (and a gate's tool call) for ever.
      const timeout = AbortSignal.timeout(timeoutMs);
      timeout.addEventListener("abort", () => {
        if (!waiting.delete(requestId)) return;
        const message = `No answer to "${request.title}" (${requestId}) within ${timeoutMs / 1000} s; taken as no.`;
        writeJsonLine(stdout, { type: "notify", message, level: "warning" } satisfies RpcUiNotice);
        resolve({ cancelled: true });
      });
      signal?.addEventListener("abort", () => waiting.delete(requestId) && resolve({ cancelled: true }), {
        once: true,
      });
      writeJsonLine(stdout, { type: "ui_request", requestId, ...request });
    });
  return {
    interactive: true,
    async confirm({ title, message, signal }) {
      const answer = await ask({ method: "confirm", title, ...(message ? { message } : {}) }, signal);
      return !answer.cancelled && answer.value === true;
    },
    async select({ title, options, signal }) {
      const answer = await ask({ method: "select", title, options }, signal);
      return !answer.cancelled && typeof answer.value === "string" && options.includes(answer.value)
        ? answer.value
        : undefined;
    },
    async input({ title, placeholder, signal }) {
      const answer = await ask({ method: "input", title, ...(placeholder ? { placeholder } : {}) }, signal);
      return !answer.cancelled && typeof answer.value === "string" ? answer.value : undefined;
    },
    approve: ({ signal, ...request }) =>
      new Promise<ApprovalAnswer>((resolve) => {
        const id = `approval-${next++}`;
        approvals.set(id, resolve);
        signal?.addEventListener("abort", () => approvals.delete(id) && resolve({ decision: "deny" }), { once: true });
        writeJsonLine(stdout, { type: "approval_request", id, ...request });
      }),
    answerApproval(id, answer) {
      const resolve = approvals.get(id);
      if (!resolve) return false;
      approvals.delete(id);
      resolve(answer);
      return true;
    },
    notify: (message, level = "info") =>
      writeJsonLine(stdout, { type: "notify", message, level } satisfies RpcUiNotice),
    setStatus: (key, text) => writeJsonLine(stdout, { type: "status", key, text: text ?? null } satisfies RpcUiNotice),
    answer(requestId, answer) {
      const resolve = waiting.get(requestId);
      if (!resolve) return false;
      waiting.delete(requestId);
      resolve(answer);
      return true;
    },
    cancelAll() {
      for (const resolve of waiting.values()) resolve({ cancelled: true });
      waiting.clear();
      for (const resolve of approvals.values()) resolve({ decision: "deny", reason: "the RPC client went away" });
      approvals.clear();
    },
  };
}

/**
 * RPC mode: JSONL commands on stdin, one response per command and every event on stdout
 * (nothing else ever goes to stdout). A bad line gets an error response and serving goes on.
 * EOF on stdin aborts work in progress, persists the session and resolves with exit code 0.
 */
export async function runRpcMode(options: RpcModeOptions): Promise<number> {
  const { session, stdout } = options;
  const cycle = new QuickSwitch(session, {
    startupModel: session.state.model,
    scope: options.modelScope,
    env: options.env,
  });
  const respond = (response: Omit<RpcResponse, "type">) => writeJsonLine(stdout, { type: "response", ...response });
  session.subscribe((event) => writeJsonLine(stdout, event));
  // Loaded before the first line is read, so every command is checked in arrival order.
  const check = await loadSchemaChecker();
  // Every command's work, so EOF waits for the last one before the session is disposed.
  const pending = new Set<Promise<unknown>>();
  return new Promise((resolve) => {
    readLines(
      options.stdin,
      (line) => {
        const parsed = parseRpcCommand(line, check);
        if (!parsed.ok) {
          respond({
            ...(parsed.id ? { id: parsed.id } : {}),
            command: parsed.command ?? "parse",
            success: false,
            error: parsed.error,
            ...(parsed.problems ? { problems: parsed.problems } : {}),
            ...(parsed.warnings ? { warnings: parsed.warnings } : {}),
          });
          return;
        }
        const command = parsed.value;
        const base = {
          ...(command.id ? { id: command.id } : {}),
          command: command.type,
          ...(parsed.warnings.length > 0 ? { warnings: parsed.warnings } : {}),
        };
        // Answers are handled at once: the op ahead of them (an abort) may be waiting on the question.
        if (command.type === "ui_response") {
          const known = options.ui?.answer(command.requestId, {
            ...(command.value !== undefined ? { value: command.value } : {}),
            ...(command.cancelled !== undefined ? { cancelled: command.cancelled } : {}),
          });
          if (known) respond({ ...base, success: true });
          else respond({ ...base, success: false, error: `No question with id "${command.requestId}" is waiting.` });
          return;
        }
        // The session orders the ops (and decides what waits while it is busy): each is submitted
        // as it arrives and answered when it is done, or, for a prompt, once it started.
        const work = handleCommand(command, options, cycle).then(
          (data) => respond({ ...base, success: true, ...(data !== undefined ? { data } : {}) }),
          (error: Error) => respond({ ...base, success: false, error: error.message }),
        );
        pending.add(work);
        void work.finally(() => pending.delete(work));
        // `shutdown` ends serving as EOF would, once it is answered.
        if (command.type === "shutdown") void work.then(() => resolve(0));
      },
      () => {
        options.ui?.cancelAll();
        void Promise.all(pending).then(async () => {
          await session.dispose();
          resolve(0);
        });
      },
      { output: stdout, onTooLong: (bytes) => respond(tooLongResponse(bytes)) },
    );
  });
}

/** One command: a session op (`submit`), or a question about the session's state. */
async function handleCommand(command: RpcCommand, options: RpcModeOptions, cycle: QuickSwitch): Promise<unknown> {
  const { session } = options;
  const models = session.info.models;
  switch (command.type) {
    case "prompt": {
      const whileBusy = command.whileBusy ?? streamingBehaviorOf(command.streamingBehavior);
      const run = session.submit({
        type: "prompt",
        text: command.message,
        ...(command.images ? { images: command.images } : {}),
        ...(whileBusy ? { whileBusy } : {}),
      });
      // Answered once accepted: the run's events follow, and `session_idle` says when it is all done.
      const refused = await Promise.race([run.then(() => undefined), accepted()]).catch((error: Error) => error);
      if (refused instanceof SessionBusyError)
        throw new Error('The agent is busy; send the prompt with "streamingBehavior": "steer" or "followUp".');
      if (refused instanceof Error) throw refused;
      void run.catch(() => {});
      return undefined;
    }
    case "steer":
      await session.submit({ type: "steer", text: command.message });
      return undefined;
    case "follow_up":
      await session.submit({ type: "follow_up", text: command.message });
      return undefined;
    case "abort":
      await session.submit({ type: "abort" });
      return undefined;
    case "get_state":
      return {
        ...describeState(session),
        permissionMode: session.state.permissionMode,
        sandbox: await session.describeSandbox(),
        // bash's background shells: id, command, state (running / exited with exitCode / killed), times.
        shells: session.info.shells?.list() ?? [],
      };
    case "set_permission_mode":
    case "set_mode":
      return session.submit({ type: "set_mode", mode: command.mode });
    case "get_messages":
      return { messages: session.messages };
    case "set_model": {
      if (!models.getProvider(command.provider)) throw new Error(`Unknown provider "${command.provider}".`);
      await session.submit({
        type: "set_model",
        model: models.getModel(command.provider, command.modelId),
        apiKey: resolveApiKey({ provider: command.provider, env: options.env, models }),
      });
      return describeState(session);
    }
    case "get_available_models":
      return {
        models: models.getProviders().flatMap((provider) =>
          models.getModels(provider.name).map((model) => ({
            provider: model.provider,
            id: model.id,
            name: model.name,
            contextWindow: model.contextWindow,
            reasoning: model.reasoning,
          })),
        ),
      };
    case "set_thinking_level":
    case "set_thinking":
      await session.submit({ type: "set_thinking", level: command.level });
      return undefined;
    case "cycle_model": {
      const result = await cycle.switchModel(command.direction === "backward" ? -1 : 1);
      if (!result.switched) throw new Error(result.problem);
      return { ...describeState(session), scoped: options.modelScope !== undefined };
    }
    case "new_session":
    case "new":
      return session.submit({ type: "new" });
    case "compact":
      return session.submit({
        type: "compact",
        ...(command.customInstructions ? { focus: command.customInstructions } : {}),
      });
    case "get_session_stats": {
      // The tree of the current (or last) request: the parent and each subagent.
      const spend = session.getSpend();
      return {
        ...session.getStats(),
        sessionId: session.state.sessionId,
        sessionFile: session.state.sessionFile ?? null,
        ...(spend === undefined ? {} : { agents: spend.agents }),
      };
    }
    case "fork":
      return withFile(await session.submit({ type: "fork", ...(command.entryId ? { entryId: command.entryId } : {}) }));
    case "switch_session":
      return withFile(await session.submit({ type: "open", session: command.sessionPath }));
    case "open":
      return withFile(await session.submit({ type: "open", session: command.session }));
    case "navigate":
      return session.submit({ type: "navigate", entryId: command.entryId });
    case "command":
      return runCommandOp(session, command);
    case "shell":
      return session.submit({
        type: "shell",
        command: command.command,
        ...(command.addToContext !== undefined ? { addToContext: command.addToContext } : {}),
      });
    case "reload":
      return session.submit({ type: "reload" });
    case "shutdown":
      return session.submit({ type: "shutdown" });
    case "review":
      return session.submit({
        type: "review",
        ...(command.base !== undefined ? { base: command.base } : {}),
        ...(command.uncommitted !== undefined ? { uncommitted: command.uncommitted } : {}),
        ...(command.focus !== undefined ? { focus: command.focus } : {}),
      });
    case "remember":
      return session.submit({ type: "remember", text: command.text, scope: command.scope });
    case "get_last_assistant_text":
      return { text: session.getLastAssistantText() ?? null };
    case "get_rewind_points":
      return { points: session.rewindTargets() };
    case "rewind": {
      const request = { entryId: command.entryId, restore: command.restore ?? "both", force: command.force === true };
      if (command.preview) return session.previewRewind(request);
      return session.submit({ type: "rewind", ...request });
    }
    case "approval_response":
      return session.submit({
        type: "approval_response",
        id: command.id,
        decision: command.decision,
        ...(command.reason !== undefined ? { reason: command.reason } : {}),
      });
    case "ui_response":
      throw new Error(`No question with id "${command.requestId}" is waiting for an answer.`);
    default: {
      const never: never = command;
      throw new Error(`Unhandled command ${JSON.stringify(never)}`);
    }
  }
}

/** The `command` op: answered when it is done (a template's or skill's run included). */
async function runCommandOp(session: AgentSession, command: Extract<RpcCommand, { type: "command" }>) {
  const result = await session.submit({
    type: "command",
    name: command.name,
    ...(command.args !== undefined ? { args: command.args } : {}),
    ...(command.whileBusy ? { whileBusy: command.whileBusy } : {}),
  });
  return "delivered" in result ? result : { reason: result.reason };
}

/** Resolves after the ops submitted so far were accepted or refused (a refusal is decided at once). */
function accepted(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function streamingBehaviorOf(behavior: "steer" | "followUp" | undefined): "steer" | "follow_up" | undefined {
  return behavior === "followUp" ? "follow_up" : behavior;
}

function withFile(result: { sessionId: string; sessionFile: string | undefined }) {
  return { sessionId: result.sessionId, sessionFile: result.sessionFile ?? null };
}

function describeState(session: AgentSession) {
  const state = session.state;
  return {
    model: { provider: state.model.provider, id: state.model.id },
    thinkingLevel: state.thinkingLevel,
    isRunning: state.isRunning,
    sessionId: state.sessionId,
    sessionFile: state.sessionFile ?? null,
    messageCount: state.messageCount,
    pendingToolCalls: state.pendingToolCalls,
  };
}

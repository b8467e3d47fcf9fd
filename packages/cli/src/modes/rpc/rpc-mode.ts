import type { Readable, Writable } from "node:stream";
import { defaultModelRegistry, type ModelRegistry } from "@gyre/ai";
import type { AgentSession } from "../../core/agent-session.js";
import type { WorkspaceCheckpoints } from "../../core/checkpoints/workspace-checkpoints.js";
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
  cwd: string;
  sessionsDir: string;
  env: NodeJS.ProcessEnv;
  stdin: Readable;
  stdout: Writable;
  /** The interface extensions were given (from `createRpcUserInterface`); `ui_response` answers it. */
  ui?: RpcUserInterface;
  /** The run's providers and models (`set_model`, `get_available_models`); default the process-wide registry. */
  models?: ModelRegistry;
  /** Rewind previews come from here; without it `rewind` with `preview` fails with a clear error. */
  checkpoints?: WorkspaceCheckpoints;
  /** `--models`: the list `cycle_model` goes through; without it, every model with a key. */
  modelScope?: readonly ScopedModel[];
  /** Plan mode for `set_permission_mode`. */
  safety?: {
    setPlanMode(on: boolean): Promise<void>;
    permissionMode?(): "default" | "plan";
    describeSandbox?(): Promise<string>;
  };
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
  const ending = trackRunEnds(session);
  session.subscribe((event) => writeJsonLine(stdout, event));
  // Loaded before the first line is read, so every command is checked in arrival order.
  const check = await loadSchemaChecker();
  let queue: Promise<void> = Promise.resolve();
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
        // Answers skip the queue: the command ahead of them (an abort) may be waiting on the question.
        if (command.type === "ui_response") {
          const known = options.ui?.answer(command.requestId, {
            ...(command.value !== undefined ? { value: command.value } : {}),
            ...(command.cancelled !== undefined ? { cancelled: command.cancelled } : {}),
          });
          if (known) respond({ ...base, success: true });
          else respond({ ...base, success: false, error: `No question with id "${command.requestId}" is waiting.` });
          return;
        }
        if (command.type === "approval_response") {
          const known = options.ui?.answerApproval(command.id, {
            decision: command.decision,
            ...(command.reason !== undefined ? { reason: command.reason } : {}),
          });
          if (known) respond({ ...base, success: true });
          else respond({ ...base, success: false, error: `No approval with id "${command.id}" is waiting.` });
          return;
        }
        // Commands run in arrival order; a prompt only waits for its start, not its end.
        queue = queue.then(async () => {
          try {
            // A client answering agent_end at once must not be refused while the run is persisted.
            if (WAIT_FOR_RUN_END.has(command.type)) await ending();
            const data = await handleCommand(command, options, cycle);
            respond({ ...base, success: true, ...(data !== undefined ? { data } : {}) });
          } catch (error) {
            respond({ ...base, success: false, error: (error as Error).message });
          }
        });
      },
      () => {
        options.ui?.cancelAll();
        void queue.then(async () => {
          await session.dispose();
          resolve(0);
        });
      },
      { output: stdout, onTooLong: (bytes) => respond(tooLongResponse(bytes)) },
    );
  });
}

/** Commands that need an idle session: sent right after `agent_end`, they wait for the run to finish. */
const WAIT_FOR_RUN_END = new Set<RpcCommand["type"]>([
  "prompt",
  "new_session",
  "compact",
  "fork",
  "switch_session",
  "rewind",
]);

/**
 * After `agent_end` the session still writes the run's last entries (and its end checkpoint)
 * before it is idle. The returned function resolves when that is over, or at once when no run
 * has just ended; a new run starting (a queued follow-up) also ends the wait, since the session
 * is then busy for real.
 */
function trackRunEnds(session: AgentSession): () => Promise<void> {
  let settling: Promise<void> | undefined;
  let started: (() => void) | undefined;
  session.subscribe((event) => {
    if (event.type === "agent_end") {
      settling = new Promise<void>((resolve) => {
        started = resolve;
        void session.whenIdle().then(resolve);
      });
      const current = settling;
      void current.then(() => {
        if (settling === current) settling = undefined;
      });
    } else if (event.type === "agent_start") {
      started?.();
      settling = undefined;
    }
  });
  return () => (session.state.isRunning && settling ? settling : Promise.resolve());
}

async function handleCommand(command: RpcCommand, options: RpcModeOptions, cycle: QuickSwitch): Promise<unknown> {
  const { session } = options;
  const models = options.models ?? defaultModelRegistry;
  switch (command.type) {
    case "prompt": {
      if (session.state.isRunning) {
        if (command.streamingBehavior === "steer") return session.steer(command.message);
        if (command.streamingBehavior === "followUp") return session.followUp(command.message);
        throw new Error('The agent is busy; send the prompt with "streamingBehavior": "steer" or "followUp".');
      }
      void session.prompt(command.message, command.images ?? []).catch(() => {});
      return undefined;
    }
    case "steer":
      return session.steer(command.message);
    case "follow_up":
      return session.followUp(command.message);
    case "abort":
      await session.abort();
      return undefined;
    case "get_state": {
      const safety = options.safety;
      return {
        ...describeState(session),
        ...(safety?.permissionMode ? { permissionMode: safety.permissionMode() } : {}),
        ...(safety?.describeSandbox ? { sandbox: await safety.describeSandbox() } : {}),
      };
    }
    case "set_permission_mode":
      if (!options.safety) throw new Error("This run has no permission modes.");
      await options.safety.setPlanMode(command.mode === "plan");
      return { mode: command.mode };
    case "get_messages":
      return { messages: session.messages };
    case "set_model": {
      if (!models.getProvider(command.provider)) throw new Error(`Unknown provider "${command.provider}".`);
      session.setModel(
        models.getModel(command.provider, command.modelId),
        resolveApiKey({ provider: command.provider, env: options.env, models }),
      );
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
      session.setThinkingLevel(command.level);
      return undefined;
    case "cycle_model": {
      const result = cycle.switchModel(command.direction === "backward" ? -1 : 1);
      if (!result.switched) throw new Error(result.problem);
      return { ...describeState(session), scoped: options.modelScope !== undefined };
    }
    case "new_session":
      assertIdle(session, "start a new session");
      await session.newSession();
      return { sessionId: session.state.sessionId };
    case "compact":
      assertIdle(session, "compact");
      return { compacted: await session.compact(command.customInstructions) };
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
    case "fork": {
      assertIdle(session, "fork");
      await session.fork(command.entryId ? { entryId: command.entryId } : {});
      return { sessionId: session.state.sessionId, sessionFile: session.state.sessionFile };
    }
    case "switch_session": {
      assertIdle(session, "switch sessions");
      await session.open(command.sessionPath);
      return { sessionId: session.state.sessionId, sessionFile: session.state.sessionFile };
    }
    case "get_last_assistant_text":
      return { text: session.getLastAssistantText() ?? null };
    case "get_rewind_points":
      return { points: options.checkpoints?.rewindTargets() ?? [] };
    case "rewind":
      return handleRewind(command, options);
    case "ui_response":
      throw new Error(`No question with id "${command.requestId}" is waiting for an answer.`);
    case "approval_response":
      throw new Error(`No approval with id "${command.id}" is waiting.`);
    default: {
      const never: never = command;
      throw new Error(`Unhandled command ${JSON.stringify(never)}`);
    }
  }
}

async function handleRewind(command: Extract<RpcCommand, { type: "rewind" }>, options: RpcModeOptions) {
  assertIdle(options.session, "rewind");
  const restore = command.restore ?? "both";
  const request = { entryId: command.entryId, restore, force: command.force === true };
  if (!command.preview) return options.session.rewind(request);
  if (!options.checkpoints) throw new Error("Rewind is not available in this session.");
  return options.checkpoints.preview(request);
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

function assertIdle(session: AgentSession, action: string): void {
  if (session.state.isRunning) throw new Error(`The agent is running; abort first to ${action}.`);
}

import type { AssistantMessage, Message, Tool, ToolCall } from "@gyre/ai";
import { BudgetTracker } from "./budgets.js";
import { capHistoryArguments, DEFAULT_MAX_TOOL_ARGUMENT_BYTES } from "./cap-tool-arguments.js";
import { executeToolCalls, rejectToolCalls, type ToolBatchResult } from "./execute-tool-calls.js";
import { convertEach, convertMessageByDefault, streamAssistant } from "./stream-assistant.js";
import { describeAborted, describeFailedResponse, describeTruncated } from "./tool-error-texts.js";
import type {
  AgentContext,
  AgentEndReason,
  AgentEvent,
  AgentLoopOptions,
  AgentMessage,
  AgentRunResult,
} from "./types.js";

/** Receives each event; the loop waits for it before emitting the next. */
export type AgentEventListener = (event: AgentEvent) => void | Promise<void>;

type Run = {
  options: AgentLoopOptions;
  context: AgentContext;
  modelTools: Tool[];
  /** The default conversion of the history, appended to incrementally (see `StreamAssistantOptions`). */
  llmMessages?: Message[];
  added: AgentMessage[];
  signal: AbortSignal;
  timedOut: () => boolean;
  budgets: BudgetTracker;
  emit: (event: AgentEvent) => Promise<void>;
};

/**
 * Runs the agent loop as an async generator of events (docs/design/messages-and-events.md#agent-events): model call → tool calls →
 * results → model call, until the model requests no tool (or a stop condition). Returns the
 * messages the run added and why it ended. Never throws and never prints. The loop waits for the
 * consumer to take each event; breaking out of `for await` aborts the run.
 */
export async function* runAgentLoop(options: AgentLoopOptions): AsyncGenerator<AgentEvent, AgentRunResult> {
  const queue: { event: AgentEvent; taken: () => void }[] = [];
  let wake: (() => void) | undefined;
  let result: AgentRunResult | undefined;
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  const listener = (event: AgentEvent) =>
    new Promise<void>((taken) => {
      queue.push({ event, taken });
      wake?.();
    });
  const running = runAgentLoopWithListener({ ...options, signal }, listener).then((value) => {
    result = value;
    wake?.();
  });
  let current: (typeof queue)[number] | undefined;
  try {
    while (true) {
      current = queue.shift();
      if (current) {
        yield current.event;
        current.taken();
      } else if (result) {
        return result;
      } else {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    }
  } finally {
    if (!result) {
      // The consumer stopped early: abort, and drain the rest of the run without a reader.
      controller.abort();
      current?.taken();
      for (const item of queue.splice(0)) item.taken();
      wake = () => {
        for (const item of queue.splice(0)) item.taken();
      };
      await running;
    }
  }
}

/**
 * Runs the agent loop, handing each event to `listener` and awaiting it before the next one
 * (events of concurrent tools are serialised too). A listener that throws or rejects is ignored
 * by the loop; wrap it if you need to report that. Resolves with the messages the run added and
 * why it ended; never rejects.
 */
export async function runAgentLoopWithListener(
  options: AgentLoopOptions,
  listener: AgentEventListener,
): Promise<AgentRunResult> {
  const controller = new AbortController();
  const timeSignal =
    options.budgets?.maxWallTimeMs !== undefined ? AbortSignal.timeout(options.budgets.maxWallTimeMs) : undefined;
  const sources = [options.signal, timeSignal].filter((source) => source !== undefined);
  const forward = () => controller.abort();
  for (const source of sources) {
    if (source.aborted) controller.abort();
    else source.addEventListener("abort", forward, { once: true });
  }
  const signal = controller.signal;
  // A history saved before the cap existed may still hold a huge call: it is not re-sent either.
  const messages = capHistoryArguments(
    options.context.messages,
    options.maxToolArgumentBytes ?? DEFAULT_MAX_TOOL_ARGUMENT_BYTES,
  );
  const run: Run = {
    options,
    context: { ...options.context, messages },
    ...(options.convertToLlm ? {} : { llmMessages: convertEach(messages, options.convertMessageToLlm) }),
    modelTools: toModelTools(options.context.tools),
    added: [],
    signal,
    timedOut: () => timeSignal?.aborted === true && options.signal?.aborted !== true,
    budgets: new BudgetTracker(options.budgets),
    emit: createSerialEmitter(listener),
  };
  await run.emit({ type: "agent_start" });
  let reason: AgentEndReason;
  try {
    reason = await runTurns(run);
  } catch {
    // Every step converts its failures into messages; this is a last line of defence so the run still closes.
    reason = signal.aborted ? "aborted" : "error";
  } finally {
    for (const source of sources) source.removeEventListener("abort", forward);
  }
  await run.emit({ type: "agent_end", messages: run.added, reason });
  return { messages: run.added, reason };
}

/** What the model sees of the tools: only name, description and schema. */
function toModelTools(tools: AgentContext["tools"]): Tool[] {
  return (tools ?? []).map(({ name, description, parameters }) => ({ name, description, parameters }));
}

async function runTurns(run: Run): Promise<AgentEndReason> {
  const { options } = run;
  let pending = [...(options.prompts ?? []), ...(await poll(options.getSteeringMessages))];
  while (true) {
    let moreTools = true;
    while (moreTools || pending.length > 0) {
      // A turn that will not run still records what was queued for it, but opens no turn.
      const stopped = run.signal.aborted ? "aborted" : run.budgets.check();
      if (stopped) {
        for (const message of pending) await append(run, message);
        if (stopped === "aborted") return endAborted(run);
        await run.emit(stopped);
        return "budget";
      }
      if (options.getTools) {
        run.context.tools = options.getTools();
        run.modelTools = toModelTools(run.context.tools);
      }
      // Pi's order, which consumers port from: the turn opens before its input messages.
      await run.emit({ type: "turn_start" });
      for (const message of pending) await append(run, message);
      pending = [];
      const message = await streamAssistant({ ...run, model: options.model, config: options });
      await append(run, message, false);
      run.budgets.record(message);
      const toolCalls = message.content.filter((block): block is ToolCall => block.type === "toolCall");
      const batch = await handleToolCalls(run, message, toolCalls);
      for (const result of batch.results) await append(run, result);
      await run.emit({ type: "turn_end", message, toolResults: batch.results });
      if (message.stopReason === "aborted" || run.signal.aborted) return endAborted(run);
      if (message.stopReason === "error") return "error";
      if (batch.terminate) return "terminate";
      if (await ask(options.shouldStopAfterTurn, run, message, batch)) return "stop_after_turn";
      moreTools = toolCalls.length > 0;
      pending = await poll(options.getSteeringMessages);
    }
    pending = await poll(options.getFollowUpMessages);
    if (pending.length === 0) return "stop";
  }
}

function handleToolCalls(run: Run, message: AssistantMessage, toolCalls: ToolCall[]): Promise<ToolBatchResult> {
  if (toolCalls.length === 0) return Promise.resolve({ results: [], terminate: false });
  switch (message.stopReason) {
    case "length":
      return rejectToolCalls(toolCalls, (call) => describeTruncated(call.name), run.emit);
    case "error":
      return rejectToolCalls(toolCalls, (call) => describeFailedResponse(call.name, message.errorMessage), run.emit);
    case "aborted":
      return rejectToolCalls(toolCalls, (call) => describeAborted(call.name, false), run.emit);
    case "stop":
    case "toolUse":
      return executeToolCalls({ ...run, assistantMessage: message, toolCalls, config: run.options });
    default: {
      const never: never = message.stopReason;
      throw new Error(`unknown stop reason ${String(never)}`);
    }
  }
}

/** Appends a message to the history, emitting its start/end (the assistant's were emitted while streaming). */
async function append(run: Run, message: AgentMessage, announce = true): Promise<void> {
  if (announce) await run.emit({ type: "message_start", message });
  run.context.messages.push(message);
  if (run.llmMessages) {
    const converted = (run.options.convertMessageToLlm ?? convertMessageByDefault)(message);
    if (converted) run.llmMessages.push(converted);
  }
  run.added.push(message);
  if (announce) await run.emit({ type: "message_end", message });
}

/** An abort caused by the wall-time budget is reported as that budget. */
async function endAborted(run: Run): Promise<AgentEndReason> {
  if (!run.timedOut()) return "aborted";
  await run.emit(run.budgets.timeReached());
  return "budget";
}

async function ask(
  shouldStop: AgentLoopOptions["shouldStopAfterTurn"],
  run: Run,
  message: AssistantMessage,
  batch: ToolBatchResult,
): Promise<boolean> {
  if (!shouldStop) return false;
  try {
    return await shouldStop(
      { turn: run.budgets.turnCount, message, toolResults: batch.results, messages: run.context.messages },
      run.signal,
    );
  } catch {
    // A broken predicate must not kill the run; it just does not stop it.
    return false;
  }
}

/** Polls a queue callback; a throwing callback counts as an empty queue. */
async function poll(source: (() => AgentMessage[] | Promise<AgentMessage[]>) | undefined): Promise<AgentMessage[]> {
  if (!source) return [];
  try {
    return await source();
  } catch {
    return [];
  }
}

/** Serialises events from concurrent producers (parallel tools, retries) and isolates listener failures. */
function createSerialEmitter(listener: AgentEventListener): (event: AgentEvent) => Promise<void> {
  let tail = Promise.resolve();
  const ignore = () => undefined;
  return (event) => {
    tail = tail.then(() => listener(event)).then(ignore, ignore);
    return tail;
  };
}

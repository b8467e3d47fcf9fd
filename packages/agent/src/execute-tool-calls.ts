import { type AssistantMessage, describeError, type ToolCall, type ToolResultMessage } from "@gyre/ai";
import { readDroppedArguments } from "./cap-tool-arguments.js";
import { loadValidateArguments } from "./load-validate-arguments.js";
import {
  describeAborted,
  describeBadResult,
  describeBlocked,
  describeHookFailure,
  describeInvalidArguments,
  describeInvalidJson,
  describeOversizedArguments,
  describePrepareFailure,
  describeUnknownTool,
} from "./tool-error-texts.js";
import type { AgentContext, AgentEvent, AgentLoopConfig, AgentToolResult, AnyAgentTool } from "./types.js";

/** Everything one tool batch needs from the running loop. */
export type ToolBatchOptions = {
  assistantMessage: AssistantMessage;
  toolCalls: ToolCall[];
  /** The run's live context (tools and history). */
  context: AgentContext;
  config: AgentLoopConfig;
  signal: AbortSignal;
  emit: (event: AgentEvent) => Promise<void>;
};

/** The batch's result messages in call order, and whether every one asked to terminate. */
export type ToolBatchResult = { results: ToolResultMessage[]; terminate: boolean };

type CallRecord = {
  toolCall: ToolCall;
  tool?: AnyAgentTool;
  args: Record<string, unknown>;
  started: boolean;
  outcome?: { result: AgentToolResult; isError: boolean };
};

type Batch = ToolBatchOptions & { tools: Map<string, AnyAgentTool> };

/**
 * Runs the tool calls of one assistant message: each is looked up, prepared, validated, offered
 * to `beforeToolCall`, executed and offered to `afterToolCall`. Never throws: every failure,
 * including an abort, becomes an error result. Every call gets exactly one
 * `tool_execution_start`/`tool_execution_end` pair and one result message.
 */
export async function executeToolCalls(options: ToolBatchOptions): Promise<ToolBatchResult> {
  // The first tool of a name is the one the model was shown (the request drops later ones).
  const tools = new Map<string, AnyAgentTool>();
  for (const tool of options.context.tools ?? []) if (!tools.has(tool.name)) tools.set(tool.name, tool);
  const batch: Batch = { ...options, tools };
  const records: CallRecord[] = options.toolCalls.map((toolCall) => ({
    toolCall,
    args: toolCall.arguments,
    started: false,
  }));
  const sequential =
    options.config.toolExecution === "sequential" ||
    records.some((record) => tools.get(record.toolCall.name)?.executionMode === "sequential");
  // Per batch, and removed afterwards: racing every batch against one run-long promise would
  // pile up reactions on it for the whole run.
  let onAbort = () => {};
  const aborted = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    if (options.signal.aborted) resolve();
    else options.signal.addEventListener("abort", onAbort, { once: true });
  });
  const race = (work: Promise<unknown>) => Promise.race([work, aborted]);
  try {
    await runBatch(batch, records, sequential, race);
  } finally {
    options.signal.removeEventListener("abort", onAbort);
  }
  for (const record of records) {
    if (record.outcome) continue;
    const started = record.started;
    if (!started) await start(batch, record);
    await finish(batch, record, errorResult(describeAborted(record.toolCall.name, started)), true);
  }
  return collectResults(records);
}

/** Runs the calls in order or concurrently; returns early when the run is aborted. */
async function runBatch(
  batch: Batch,
  records: CallRecord[],
  sequential: boolean,
  race: (work: Promise<unknown>) => Promise<unknown>,
): Promise<void> {
  if (sequential) {
    for (const record of records) {
      if (batch.signal.aborted) break;
      await start(batch, record);
      await race(preflight(batch, record).then((ready) => (ready ? execute(batch, record) : undefined)));
    }
  } else {
    const ready: CallRecord[] = [];
    for (const record of records) {
      if (batch.signal.aborted) break;
      await start(batch, record);
      if (await race(preflight(batch, record))) ready.push(record);
    }
    if (!batch.signal.aborted) await race(Promise.all(ready.map((record) => execute(batch, record))));
  }
}

/**
 * Gives each call a fixed error result without running it (calls of a `length`-stopped, failed or
 * aborted response), with the same events as a run call.
 */
export async function rejectToolCalls(
  toolCalls: ToolCall[],
  describe: (toolCall: ToolCall) => string,
  emit: (event: AgentEvent) => Promise<void>,
): Promise<ToolBatchResult> {
  const records: CallRecord[] = [];
  for (const toolCall of toolCalls) {
    const record: CallRecord = { toolCall, args: toolCall.arguments, started: true };
    await emit({ type: "tool_execution_start", toolCallId: toolCall.id, toolName: toolCall.name, args: record.args });
    record.outcome = { result: errorResult(describe(toolCall)), isError: true };
    await emit(createEndEvent(record));
    records.push(record);
  }
  return collectResults(records);
}

function start(batch: Batch, record: CallRecord): Promise<void> {
  record.started = true;
  const { toolCall } = record;
  return batch.emit({
    type: "tool_execution_start",
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    args: record.args,
  });
}

/** Settles a call once; a tool finishing after an abort already settled it is ignored. */
function finish(batch: Batch, record: CallRecord, result: AgentToolResult, isError: boolean): Promise<void> {
  if (record.outcome) return Promise.resolve();
  record.outcome = { result, isError };
  return batch.emit(createEndEvent(record));
}

/** Lookup, argument checks and `beforeToolCall`. Returns whether the call may execute. */
async function preflight(batch: Batch, record: CallRecord): Promise<boolean> {
  const { toolCall } = record;
  const fail = async (text: string) => {
    await finish(batch, record, errorResult(text), true);
    return false;
  };
  const dropped = readDroppedArguments(toolCall.arguments);
  if (dropped) return fail(describeOversizedArguments(toolCall.name, dropped));
  const tool = batch.tools.get(toolCall.name);
  if (!tool) {
    const unavailable = batch.config.describeUnavailableTool?.(toolCall.name);
    return fail(describeUnknownTool(toolCall.name, [...batch.tools.keys()], unavailable));
  }
  if (toolCall.rawArguments !== undefined) return fail(describeInvalidJson(toolCall));
  let args = toolCall.arguments;
  if (tool.prepareArguments) {
    try {
      args = tool.prepareArguments(args);
    } catch (error) {
      return fail(describePrepareFailure(tool.name, error));
    }
  }
  let validateArguments: Awaited<ReturnType<typeof loadValidateArguments>>;
  try {
    validateArguments = await loadValidateArguments();
  } catch (error) {
    // A missing bundle chunk, not the model's fault: say so rather than blame its arguments.
    return fail(
      `The arguments of "${tool.name}" could not be checked (${describeError(error)}); tell the user gyre's installation looks broken.`,
    );
  }
  const validation = validateArguments(tool.parameters, args);
  if (!validation.ok) return fail(describeInvalidArguments(tool.name, validation.problems, args));
  record.tool = tool;
  record.args = validation.value;
  if (batch.config.beforeToolCall) {
    try {
      const verdict = await batch.config.beforeToolCall(hookInput(batch, record), batch.signal);
      if (verdict?.block) return fail(describeBlocked(tool.name, verdict.reason));
      if (verdict?.args) {
        const rewritten = validateArguments(tool.parameters, verdict.args);
        if (!rewritten.ok) {
          const problem = describeInvalidArguments(tool.name, rewritten.problems, verdict.args);
          return fail(`The beforeToolCall hook rewrote the arguments into invalid ones. ${problem}`);
        }
        record.args = rewritten.value;
      }
    } catch (error) {
      return fail(describeHookFailure("beforeToolCall", tool.name, error));
    }
  }
  return true;
}

/** Runs the tool and `afterToolCall`; a throw anywhere becomes an error result. */
async function execute(batch: Batch, record: CallRecord): Promise<void> {
  const tool = record.tool;
  if (!tool) return;
  const { toolCall } = record;
  let result: AgentToolResult;
  let isError = false;
  try {
    const returned: unknown = await tool.execute(record.args, {
      toolCallId: toolCall.id,
      signal: batch.signal,
      onUpdate: (partialResult) => {
        if (record.outcome || batch.signal.aborted) return;
        void batch.emit({ type: "tool_execution_update", toolCallId: toolCall.id, toolName: tool.name, partialResult });
      },
    });
    if (isToolResult(returned)) result = returned;
    else [result, isError] = [errorResult(describeBadResult(tool.name)), true];
  } catch (error) {
    // A tool that failed part-way may say what it did (a subagent's spend) in the error's `details`.
    const details = (error as { details?: unknown } | null)?.details;
    [result, isError] = [{ ...errorResult(describeError(error)), ...withDefined("details", details) }, true];
  }
  if (record.outcome || batch.signal.aborted) return;
  if (batch.config.afterToolCall) {
    try {
      const patch = await batch.config.afterToolCall({ ...hookInput(batch, record), result, isError }, batch.signal);
      if (patch) {
        result = {
          content: patch.content ?? result.content,
          ...withDefined("details", "details" in patch ? patch.details : result.details),
          ...withDefined("terminate", patch.terminate ?? result.terminate),
        };
        isError = patch.isError ?? isError;
      }
    } catch (error) {
      [result, isError] = [errorResult(describeHookFailure("afterToolCall", tool.name, error)), true];
    }
  }
  await finish(batch, record, result, isError);
}

function hookInput(batch: Batch, record: CallRecord) {
  return {
    toolCall: record.toolCall,
    args: record.args,
    assistantMessage: batch.assistantMessage,
    context: batch.context,
  };
}

function createEndEvent(record: CallRecord): AgentEvent {
  const outcome = record.outcome ?? { result: errorResult("The call has no result."), isError: true };
  const { toolCall } = record;
  return {
    type: "tool_execution_end",
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    result: outcome.result,
    isError: outcome.isError,
  };
}

function collectResults(records: CallRecord[]): ToolBatchResult {
  const timestamp = Date.now();
  const results = records.map((record): ToolResultMessage => {
    const outcome = record.outcome ?? { result: errorResult("The call has no result."), isError: true };
    return {
      role: "toolResult",
      toolCallId: record.toolCall.id,
      toolName: record.toolCall.name,
      content: outcome.result.content,
      ...withDefined("details", outcome.result.details),
      isError: outcome.isError,
      timestamp,
    };
  });
  const terminate = records.length > 0 && records.every((record) => record.outcome?.result.terminate === true);
  return { results, terminate };
}

/** An error result with one text block. */
export function errorResult(text: string): AgentToolResult {
  return { content: [{ type: "text", text }] };
}

function isToolResult(value: unknown): value is AgentToolResult {
  return typeof value === "object" && value !== null && Array.isArray((value as AgentToolResult).content);
}

/** `{ [key]: value }` when value is defined, else `{}`: keeps `undefined` out of JSON-bound objects. */
function withDefined<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

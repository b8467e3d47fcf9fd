// The prompt path of AgentSession (agent-session.ts): threshold compaction, `before_agent_start`,
// the run, one overflow compact-and-retry, then what was queued as it ended; and the
// bookkeeping every agent event goes through. The session owns the state; these functions work
// on it through a `RunHost`.
import type { Agent, AgentEvent, AgentMessage, AgentRunResult } from "@gyre/agent";
import type { ImageContent } from "@gyre/ai";
import type { AgentSessionOptions } from "./agent-session-options.js";
import type { AutoCompaction } from "./compaction/auto-compaction.js";
import { systemPromptForRun } from "./extensions/extension-bridge.js";
import type { SessionEndReason } from "./governor/governor.js";
import { raiseBudgetIfAsked } from "./governor/raise-budget.js";
import type { QueuedMessages } from "./queued-messages.js";
import type { SessionManager } from "./session/session-manager.js";
import { messageText } from "./session/switch-session.js";
import type { SessionEventHub } from "./session-event-hub.js";
import type { CompactionReason, QueuedMessage } from "./session-events.js";
import type { SessionRunResult } from "./session-ops.js";
import type { SessionToolset } from "./session-toolset.js";
import type { SessionUsage } from "./session-usage.js";

/** What runs leave behind for the session's state and its next op. */
export type RunState = {
  /** Runs started so far; tells a prompt handled by a command whether the command ran one. */
  runs: number;
  /** Set when the last turn stopped the run so that it can compact before its next model call. */
  compactBeforeNextTurn: boolean;
  lastEndReason: SessionEndReason | undefined;
  budgetReason: string | undefined;
  loopReason: string | undefined;
  /** The run has given its final answer; what is left is writing it away (or delivering what was queued). */
  answered: boolean;
};

/** The session's parts the prompt path works on; `store()` because /new, /resume and /tree replace it. */
export type RunHost = {
  readonly options: AgentSessionOptions;
  readonly agent: Agent;
  readonly compaction: AutoCompaction;
  readonly toolset: SessionToolset;
  readonly events: SessionEventHub;
  readonly queued: QueuedMessages;
  readonly usage: SessionUsage;
  readonly run: RunState;
  store(): SessionManager;
  apiKey(): string | undefined;
  flush(): Promise<void>;
  emitQueue(): void;
  /** Waits, once, for the MCP servers (`AgentSession.waitForMcp`). */
  waitForMcp(): Promise<string[]>;
  /** Whether that wait has already begun. */
  mcpStarted(): boolean;
  queueMessage(kind: "steer" | "follow_up", message: string | AgentMessage, source: QueuedMessage["source"]): void;
};

/**
 * A `prompt` or `command` op: the input resolved (templates, skills, commands, hooks), one run
 * through the prompt path, then what was queued as it ended. The reason is the governor's when a run ran.
 */
export async function runPrompt(
  host: RunHost,
  input: string,
  images: ImageContent[],
  signal: AbortSignal,
): Promise<SessionRunResult> {
  const { options, agent, run } = host;
  // A scripted run sees the same tools every time: the first prompt waits for the servers.
  if (options.waitForMcp && !host.mcpStarted())
    for (const message of await host.waitForMcp()) host.events.notice("mcp", message);
  options.governor?.startRequest();
  const resolved = options.resolveInput ? await options.resolveInput(input) : { kind: "prompt" as const, text: input };
  const runsBefore = run.runs;
  const first: AgentRunResult =
    resolved.kind === "handled"
      ? { messages: [], reason: "stop" }
      : await runOnce(host, resolved.text, images, signal, () => agent.prompt(resolved.text, { images }));
  const last = await deliverQueued(host, first, signal);
  return { ...last, reason: run.runs > runsBefore ? (run.lastEndReason ?? last.reason) : last.reason };
}

/** One run through the prompt path: threshold compaction, `before_agent_start`, the run, one overflow retry. */
export async function runOnce(
  host: RunHost,
  text: string,
  images: ImageContent[],
  signal: AbortSignal,
  start: () => Promise<AgentRunResult>,
): Promise<AgentRunResult> {
  const { agent, compaction, run } = host;
  if (compaction.isNearWindow(agent.state.messages, agent.state.model)) await runCompaction(host, "threshold", signal);
  if (signal.aborted) return { messages: [], reason: "aborted" };
  run.runs++;
  const base = host.toolset.basePrompt();
  const systemPrompt = await systemPromptForRun(host.options.extensions, {
    prompt: text,
    images,
    systemPrompt: base,
  });
  agent.setSystemPrompt(systemPrompt ?? base);
  run.compactBeforeNextTurn = false;
  let result = await start();
  for (;;) {
    // A long tool loop pauses between turns to compact and goes on (an overflow is handled below, once).
    while (result.reason === "stop_after_turn" && run.compactBeforeNextTurn && !signal.aborted) {
      run.compactBeforeNextTurn = false;
      await runCompaction(host, "threshold", signal);
      if (signal.aborted) break;
      result = await agent.continue();
    }
    if (signal.aborted || !(await raiseBudget(host, result.reason, signal))) break;
    result = await agent.continue();
  }
  if (!signal.aborted && compaction.endedInOverflow(agent.state.messages)) {
    if (await runCompaction(host, "overflow", signal)) result = await agent.continue();
  }
  const end = host.options.governor?.endOf(result.reason) ?? { reason: result.reason };
  run.lastEndReason = end.reason;
  if (end.reason === "budget" && end.message !== undefined) run.budgetReason = end.message;
  run.loopReason = end.reason === "loop" ? end.message : undefined;
  await host.flush();
  return result;
}

/** Delivers messages queued as the last run ended, each as its own run; stops on abort or a budget. */
export async function deliverQueued(host: RunHost, last: AgentRunResult, signal: AbortSignal): Promise<AgentRunResult> {
  let result = last;
  const stopped = () => result.reason === "budget" || host.options.governor?.shouldStop() === true;
  while (host.agent.hasQueuedMessages() && !signal.aborted && !stopped()) {
    // The agent delivers steering first: the hook is told the text that is delivered next.
    result = await runOnce(host, host.queued.next()?.text ?? "", [], signal, () => host.agent.continue());
  }
  return result;
}

/** Asks whether to raise a reached budget; true when raised, so the run goes on. */
export function raiseBudget(host: RunHost, reason: AgentRunResult["reason"], signal: AbortSignal): Promise<boolean> {
  return raiseBudgetIfAsked(host.options, reason, signal, (text) => host.events.notice("session", text, "info"));
}

/** Compacts the branch now; true when it did. The compaction entry's usage rebuilds the totals. */
export function runCompaction(
  host: RunHost,
  reason: CompactionReason,
  signal: AbortSignal,
  focus?: string,
): Promise<boolean> {
  return host.compaction.run({
    reason,
    signal,
    ...(focus ? { focus } : {}),
    store: host.store(),
    model: host.agent.state.model,
    apiKey: host.apiKey(),
    ...(host.options.streamFn ? { streamFn: host.options.streamFn } : {}),
    emit: (event) => host.events.emit(event),
    apply: async (messages) => {
      // The compaction entry carries its summary call's usage: the totals are rebuilt with it.
      host.usage.forgetTotals();
      host.agent.replaceMessages(messages);
      await host.flush();
      await host.options.hooks?.sessionStart("compact");
    },
  });
}

/**
 * Every agent event: to listeners, the governor, the run's state, the queue and the store. Returns
 * the flush to await when the event must be durable before the loop goes on.
 */
export function observeAgentEvent(host: RunHost, event: AgentEvent): Promise<void> | undefined {
  const { run } = host;
  host.events.notify(event);
  const governed = host.options.governor?.observe(event);
  if (governed?.event) host.events.emit(governed.event);
  // A warning reaches the model only if the run goes on; after a final answer it would start a new run.
  if (governed?.steer && event.type === "turn_end" && event.toolResults.length > 0)
    host.queueMessage("steer", governed.steer, "governor");
  if (event.type === "agent_start") {
    run.budgetReason = undefined;
    run.answered = false;
  }
  if (event.type === "budget_reached") run.budgetReason = event.reason;
  if (
    event.type === "message_start" &&
    event.message.role !== "assistant" &&
    host.queued.delivered(messageText(event.message))
  )
    host.emitQueue();
  if (event.type === "message_end") {
    if (event.message.role === "assistant") run.answered = isFinalAnswer(event.message);
    host.store().appendMessage(event.message);
    host.usage.recordMessage(event.message);
    // A tool runs only once its call is durable (file, or the fleet's journal): a run killed
    // mid-tool then resumes with the "interrupted" result instead of asking for the call again.
    if (event.message.role === "assistant" && event.message.content.some((block) => block.type === "toolCall"))
      return host.flush();
  }
  if (event.type === "turn_end" || event.type === "agent_end") return host.flush();
  return undefined;
}

/** An assistant message after which the loop calls no more tools (it may still go on with queued messages). */
function isFinalAnswer(message: AgentMessage): boolean {
  if (message.role !== "assistant") return false;
  if (message.stopReason !== "stop" && message.stopReason !== "toolUse") return true;
  return !message.content.some((block) => block.type === "toolCall");
}

import type { Agent, AgentEvent, AgentMessage } from "@gyre/agent";
import type { AgentSessionOptions } from "./agent-session-options.js";
import { bindExtensions } from "./extensions/extension-bridge.js";
import type { SessionManager } from "./session/session-manager.js";
import type { SessionEventHub } from "./session-event-hub.js";

/** What `wireSessionEvents` connects: the session's agent, its event hub and the session's own handlers. */
export type SessionWiring = {
  agent: Agent;
  events: SessionEventHub;
  store(): SessionManager;
  /** Whether a prompt (with its compaction and queued deliveries) or a run is in progress. */
  isBusy(): boolean;
  abort(): void;
  /** Queues an extension's message through the session's own bookkeeping. */
  queue(message: AgentMessage, kind: "steer" | "follow_up"): void;
  /** Runs an extension's message through the session's prompt path; resolves when it settled. */
  start(message: AgentMessage, text: string): Promise<unknown>;
  /** The session's own handling of an agent event (persistence, accounting); resolves when flushed. */
  onAgentEvent(event: AgentEvent): Promise<void> | undefined;
  /** A subagent's event, before it reaches the listeners. */
  onSubagentEvent(parentToolCallId: string, event: AgentEvent): void;
};

/**
 * Connects a new session's event flow, once: each agent event goes to the session, then to
 * extensions, then (after the session's entries are written) to checkpoints; harness parts'
 * events (subagents, the todo list) reach the listeners; checkpoints and extensions are bound
 * to the session. Holds no state of its own: everything it needs comes through `wiring`.
 */
export function wireSessionEvents(options: AgentSessionOptions, wiring: SessionWiring): void {
  const { agent, events } = wiring;
  const { extensions, checkpoints } = options;
  checkpoints?.bind({ store: wiring.store, notice: (text) => events.notice("session", text) });
  agent.subscribe(async (event) => {
    const flushed = wiring.onAgentEvent(event);
    await extensions?.emit(event);
    await flushed;
    // After the session's own entries, so a run's end checkpoint follows its last message.
    await checkpoints?.turns.handleEvent(event);
    await options.hooks?.onAgentEvent(event, {
      hasQueued: () => agent.hasQueuedMessages(),
      followUp: (message) => wiring.queue(message, "follow_up"),
    });
  });
  for (const attach of options.eventSources ?? [])
    attach((event) => {
      if (event.type === "subagent_event") wiring.onSubagentEvent(event.parentToolCallId, event.event);
      events.emit(event);
    });
  if (extensions)
    bindExtensions(extensions, {
      store: wiring.store,
      model: () => agent.state.model,
      isBusy: wiring.isBusy,
      isRunning: () => agent.state.isRunning,
      abort: wiring.abort,
      queue: (message, deliverAs) => wiring.queue(message, deliverAs === "followUp" ? "follow_up" : "steer"),
      start: wiring.start,
      notice: (message) => events.notice("extension", message),
    });
}

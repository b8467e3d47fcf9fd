import { type AssistantMessage, createEmptyUsage, type Model } from "@gyre/ai";
import { AgentSession, type SessionEvent } from "../../src/core/agent-session.js";
import type { SessionManager } from "../../src/core/session/session-manager.js";

/** A session over `store` with no tools, compaction keeping 10 tokens, and every event recorded. */
export function openTestSession(model: Model, store: SessionManager) {
  const session = new AgentSession({
    model,
    apiKey: undefined,
    systemPrompt: "test",
    thinkingLevel: "off",
    tools: [],
    messages: store.buildContext().messages,
    store,
    compaction: { keepRecentTokens: 10 },
  });
  const events: SessionEvent[] = [];
  session.subscribe((event) => events.push(event));
  return { session, events };
}

/** A finished faux answer with `text`. */
export function reply(text: string): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "faux",
    provider: "faux",
    model: "faux-1",
    usage: createEmptyUsage(),
    stopReason: "stop",
    timestamp: 2,
  };
}

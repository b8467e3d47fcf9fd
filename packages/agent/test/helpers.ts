/**
 * Shared test helpers: tools, an event collector and the invariant checks every run must pass.
 */
import type { AssistantMessage, ToolCall, ToolResultMessage } from "@gyre/ai";
import { Type } from "@sinclair/typebox";
import { expect } from "vitest";
import { runAgentLoop } from "../src/run-agent-loop.js";
import type {
  AgentEvent,
  AgentLoopOptions,
  AgentMessage,
  AgentRunResult,
  AgentToolResult,
  AnyAgentTool,
} from "../src/types.js";

/** Runs the loop to its end and returns every event and the result. */
export async function collect(options: AgentLoopOptions): Promise<{ events: AgentEvent[]; result: AgentRunResult }> {
  const events: AgentEvent[] = [];
  const generator = runAgentLoop(options);
  while (true) {
    const next = await generator.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

/** A promise with its resolve function, to let tests decide when a tool finishes. */
export function defer<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

export const addTool: AnyAgentTool = {
  name: "add",
  label: "Add",
  description: "Adds two numbers.",
  parameters: Type.Object({ a: Type.Number(), b: Type.Number() }, { additionalProperties: false }),
  execute: async (args: { a: number; b: number }) => ({ content: [{ type: "text", text: String(args.a + args.b) }] }),
};

export function toolCallsOf(messages: AgentMessage[]): ToolCall[] {
  return messages.flatMap((message) =>
    message.role === "assistant" ? message.content.filter((block): block is ToolCall => block.type === "toolCall") : [],
  );
}

export function textOf(message: AgentMessage | AssistantMessage | ToolResultMessage | undefined): string {
  if (!message) return "";
  if (typeof message.content === "string") return message.content;
  return message.content.map((block) => ("text" in block ? block.text : "")).join("");
}

/** The text blocks of a tool result's content, joined. */
export function contentText(content: AgentToolResult["content"]): string {
  return content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

export function resultsOf(messages: AgentMessage[]): ToolResultMessage[] {
  return messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
}

/**
 * The invariants of every run (docs/design/messages-and-events.md#agent-events): one agent_start/agent_end; turns, messages and tool
 * executions paired; every tool call has exactly one result; agent_end carries what was appended;
 * everything survives a JSON round trip.
 */
export function checkInvariants(events: AgentEvent[], result: AgentRunResult): void {
  expect(events[0]?.type).toBe("agent_start");
  const last = events.at(-1);
  expect(last?.type).toBe("agent_end");
  expect(events.filter((event) => event.type === "agent_start" || event.type === "agent_end")).toHaveLength(2);
  let inTurn = false;
  let openMessage: AgentMessage | undefined;
  const openTools = new Map<string, number>();
  const endedTools = new Set<string>();
  const ended: AgentMessage[] = [];
  for (const event of events) {
    switch (event.type) {
      case "turn_start":
        expect(inTurn).toBe(false);
        inTurn = true;
        break;
      case "turn_end":
        expect(inTurn).toBe(true);
        inTurn = false;
        break;
      case "message_start":
        expect(openMessage).toBeUndefined();
        openMessage = event.message;
        break;
      case "message_update":
        expect(openMessage?.role).toBe("assistant");
        break;
      case "message_end":
        expect(openMessage?.role).toBe(event.message.role);
        openMessage = undefined;
        ended.push(event.message);
        break;
      case "tool_execution_start":
        expect(openTools.has(event.toolCallId) || endedTools.has(event.toolCallId)).toBe(false);
        openTools.set(event.toolCallId, 1);
        break;
      case "tool_execution_update":
        expect(openTools.has(event.toolCallId)).toBe(true);
        break;
      case "tool_execution_end":
        expect(openTools.delete(event.toolCallId)).toBe(true);
        endedTools.add(event.toolCallId);
        break;
      default:
        break;
    }
  }
  expect(inTurn).toBe(false);
  expect(openMessage).toBeUndefined();
  expect([...openTools.keys()]).toEqual([]);
  if (last?.type === "agent_end") {
    expect(last.messages).toEqual(ended);
    expect(last.messages).toEqual(result.messages);
  }
  const calls = toolCallsOf(result.messages);
  const results = resultsOf(result.messages);
  expect(results.map((message) => message.toolCallId).sort()).toEqual(calls.map((call) => call.id).sort());
  expect(new Set(calls.map((call) => call.id)).size).toBe(calls.length);
  expect([...endedTools].sort()).toEqual(calls.map((call) => call.id).sort());
  expect(JSON.parse(JSON.stringify(events))).toEqual(events);
  expect(JSON.parse(JSON.stringify(result))).toEqual(result);
}

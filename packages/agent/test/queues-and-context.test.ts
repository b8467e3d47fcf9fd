import { type Message, type StreamFunction, stream } from "@gyre/ai";
import { createFauxModel, type FauxScriptItem } from "@gyre/ai/testing";
import { describe, expect, test } from "vitest";
import type { AgentLoopOptions, AgentMessage, CustomMessage } from "../src/types.js";
import { addTool, checkInvariants, collect, textOf } from "./helpers.js";

const user = (text: string) => ({ role: "user" as const, content: text, timestamp: 1 });
const addCall = (a: number) => ({ type: "toolCall" as const, name: "add", arguments: { a, b: 1 } });
const text = (value: string): FauxScriptItem => ({ content: [{ type: "text", text: value }] });
const note: CustomMessage = { role: "custom", customType: "note", content: "for the UI", display: true, timestamp: 1 };

async function run(script: FauxScriptItem[], options: Partial<AgentLoopOptions> = {}) {
  const faux = createFauxModel(script);
  const outcome = await collect({
    model: faux.model,
    context: { messages: [], tools: [addTool] },
    prompts: [user("go")],
    ...options,
  });
  checkInvariants(outcome.events, outcome.result);
  return { ...outcome, faux };
}

const roles = (messages: readonly (Message | AgentMessage)[]) =>
  messages.map((message) => (message.role === "user" ? `user:${textOf(message)}` : message.role));

describe("steering and follow-ups", () => {
  test("injects steering after a tool batch, before the next model call", async () => {
    const queue: AgentMessage[][] = [[], [user("actually, stop after this")]];
    let polls = 0;
    const { faux, result } = await run([{ content: [addCall(1)] }, text("ok, stopping")], {
      getSteeringMessages: () => {
        polls++;
        return queue.shift() ?? [];
      },
    });
    expect(polls).toBe(3);
    expect(roles(faux.contexts[1]?.messages ?? [])).toEqual([
      "user:go",
      "assistant",
      "toolResult",
      "user:actually, stop after this",
    ]);
    expect(result.reason).toBe("stop");
  });

  test("delivers steering that arrives on a turn without tools as a new turn", async () => {
    const queue: AgentMessage[][] = [[], [user("one more thing")]];
    const { faux } = await run([text("first"), text("second")], { getSteeringMessages: () => queue.shift() ?? [] });
    expect(faux.contexts).toHaveLength(2);
    expect(roles(faux.contexts[1]?.messages ?? []).at(-1)).toBe("user:one more thing");
  });

  test("starts a new turn with follow-ups only when the agent would stop", async () => {
    const followUps: AgentMessage[][] = [[user("and now 2+2?")]];
    let calls = 0;
    const { faux, result } = await run([{ content: [addCall(1)] }, text("2"), text("4")], {
      getFollowUpMessages: () => {
        calls++;
        return followUps.shift() ?? [];
      },
    });
    expect(calls).toBe(2);
    expect(roles(faux.contexts[2]?.messages ?? []).slice(-2)).toEqual(["assistant", "user:and now 2+2?"]);
    expect(textOf(result.messages.at(-1))).toBe("4");
  });
});

describe("context hooks", () => {
  test("runs transformContext and convertToLlm before every model call", async () => {
    const transformed: number[] = [];
    const signals: AbortSignal[] = [];
    const { faux } = await run([{ content: [addCall(1)] }, text("done")], {
      context: { messages: [note], tools: [addTool] },
      transformContext: (messages, signal) => {
        transformed.push(messages.length);
        signals.push(signal);
        return messages.slice(-2);
      },
      convertToLlm: (messages) =>
        messages.map((message) =>
          message.role === "custom" ? { role: "user", content: `[note] ${textOf(message)}`, timestamp: 1 } : message,
        ),
    });
    expect(transformed).toEqual([2, 4]);
    expect(signals.every((signal) => signal instanceof AbortSignal)).toBe(true);
    expect(roles(faux.contexts[0]?.messages ?? [])).toEqual(["user:[note] for the UI", "user:go"]);
    expect(roles(faux.contexts[1]?.messages ?? [])).toEqual(["assistant", "toolResult"]);
  });

  test("converts each message once with convertMessageToLlm while transformContext passes the history through", async () => {
    const converted: string[] = [];
    const { faux } = await run([{ content: [addCall(1)] }, { content: [addCall(2)] }, text("done")], {
      context: { messages: [note], tools: [addTool] },
      transformContext: (messages) => messages,
      convertMessageToLlm: (message) => {
        converted.push(message.role);
        return message.role === "custom"
          ? { role: "user", content: `[note] ${textOf(message)}`, timestamp: 1 }
          : message;
      },
    });
    // One conversion per message as it joined the history, not one per message per call.
    expect(converted).toEqual(["custom", "user", "assistant", "toolResult", "assistant", "toolResult", "assistant"]);
    expect(roles(faux.contexts[2]?.messages ?? [])).toEqual([
      "user:[note] for the UI",
      "user:go",
      "assistant",
      "toolResult",
      "assistant",
      "toolResult",
    ]);
  });

  test("converts what transformContext returned when it changed the history", async () => {
    const { faux } = await run([{ content: [addCall(1)] }, text("done")], {
      context: { messages: [note], tools: [addTool] },
      transformContext: (messages) => messages.filter((message) => message.role !== "toolResult"),
      convertMessageToLlm: (message) =>
        message.role === "custom" ? { role: "user", content: `[note] ${textOf(message)}`, timestamp: 1 } : message,
    });
    expect(roles(faux.contexts[1]?.messages ?? [])).toEqual(["user:[note] for the UI", "user:go", "assistant"]);
  });

  test("drops custom messages by default", async () => {
    const { faux, result } = await run([text("hi")], { context: { messages: [note], tools: [] } });
    expect(roles(faux.contexts[0]?.messages ?? [])).toEqual(["user:go"]);
    expect(result.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  test("turns a failing transformContext into an error message", async () => {
    const { result } = await run([text("never")], {
      transformContext: () => {
        throw new Error("compaction failed");
      },
    });
    expect(result.reason).toBe("error");
    expect(result.messages.at(-1)).toMatchObject({
      stopReason: "error",
      errorMessage: "Preparing the model call failed: compaction failed",
    });
  });

  test("resolves the API key before every call and emits retry events", async () => {
    const keys: (string | undefined)[] = [];
    let issued = 0;
    const streamFn: StreamFunction = (model, context, options) => {
      keys.push(options.apiKey);
      options.onRetry?.({ attempt: 1, maxRetries: 3, delayMs: 0, reason: "HTTP 429" });
      return stream(model, context, options);
    };
    const { events } = await run([{ content: [addCall(1)] }, text("done")], {
      streamFn,
      getApiKey: async (provider) => `${provider}-key-${++issued}`,
    });
    expect(keys).toEqual(["faux-key-1", "faux-key-2"]);
    const retries = events.filter((event) => event.type === "retry");
    expect(retries).toEqual([
      { type: "retry", attempt: 1, maxRetries: 3, delayMs: 0, reason: "HTTP 429" },
      { type: "retry", attempt: 1, maxRetries: 3, delayMs: 0, reason: "HTTP 429" },
    ]);
    const firstRetry = events.findIndex((event) => event.type === "retry");
    expect(events.slice(firstRetry - 3, firstRetry).map((event) => event.type)).toEqual([
      "turn_start",
      "message_start",
      "message_end",
    ]);
  });

  test("forwards each provider delta as message_update", async () => {
    const { events } = await run([text("abcdefgh")]);
    const updates = events.flatMap((event) => (event.type === "message_update" ? [event.event.type] : []));
    expect(updates).toEqual(["text_start", "text_delta", "text_delta", "text_end"]);
    const kinds = events.map((event) => event.type);
    expect(kinds).toEqual([
      "agent_start",
      "turn_start",
      "message_start",
      "message_end",
      "message_start",
      ...updates.map(() => "message_update"),
      "message_end",
      "turn_end",
      "agent_end",
    ]);
  });
});

/**
 * Behaviour a port from Pi's agent expects (issue 13, "Loop and library behaviour"): event order,
 * queue delivery on continue(), hook signals, copies of what callers hand in, and misuse reported
 * through the returned promise.
 */
import type { StreamFunction, StreamOptions } from "@gyre/ai";
import { stream } from "@gyre/ai";
import { createFauxModel, type FauxScriptItem } from "@gyre/ai/testing";
import { describe, expect, test } from "vitest";
import { Agent } from "../src/agent.js";
import type { AgentEvent, AnyAgentTool } from "../src/types.js";
import { addTool, collect, defer, textOf } from "./helpers.js";

const text = (value: string): FauxScriptItem => ({ content: [{ type: "text", text: value }] });
const addCall = (a: number) => ({ type: "toolCall" as const, name: "add", arguments: { a, b: 1 } });
const prompt = { role: "user" as const, content: "hi", timestamp: 1 };

describe("loop conformance", () => {
  test("emits turn_start before the prompt's message_start and message_end", async () => {
    const faux = createFauxModel([text("hello")]);
    const { events } = await collect({ model: faux.model, context: { messages: [] }, prompts: [prompt] });
    const kinds = events.map((event) =>
      event.type.startsWith("message_") ? `${event.type}:${roleOf(event)}` : event.type,
    );
    expect(kinds.slice(0, 4)).toEqual(["agent_start", "turn_start", "message_start:user", "message_end:user"]);
  });

  test("emits turn_start before steering messages delivered at a later turn", async () => {
    const faux = createFauxModel([{ content: [addCall(1)] }, text("done")]);
    let steered = false;
    const { events } = await collect({
      model: faux.model,
      context: { messages: [], tools: [addTool] },
      prompts: [prompt],
      getSteeringMessages: () => {
        if (steered || faux.remaining() > 1) return [];
        steered = true;
        return [{ role: "user", content: "steer", timestamp: 2 }];
      },
    });
    const steerAt = events.findIndex((event) => event.type === "message_start" && textOf(event.message) === "steer");
    expect(events[steerAt - 1]?.type).toBe("turn_start");
  });

  test("keeps the error message of a stream function that throws", async () => {
    const faux = createFauxModel([]);
    const { result } = await collect({
      model: faux.model,
      context: { messages: [] },
      prompts: [prompt],
      streamFn: () => {
        throw new Error("no socket to the model");
      },
    });
    expect(result.messages.at(-1)).toMatchObject({ stopReason: "error", errorMessage: "no socket to the model" });
  });

  test("gives shouldStopAfterTurn the run's abort signal", async () => {
    const faux = createFauxModel([text("a")]);
    const controller = new AbortController();
    let received: AbortSignal | undefined;
    let abortedWhenAsked: boolean | undefined;
    await collect({
      model: faux.model,
      context: { messages: [] },
      prompts: [prompt],
      signal: controller.signal,
      shouldStopAfterTurn: (_context, signal) => {
        received = signal;
        abortedWhenAsked = signal.aborted;
        controller.abort();
        return false;
      },
    });
    expect(abortedWhenAsked).toBe(false);
    expect(received?.aborted).toBe(true);
  });
});

describe("Agent conformance", () => {
  test("continue() delivers two queued steering messages one turn at a time", async () => {
    const faux = createFauxModel([text("first"), text("second"), text("third")]);
    const agent = new Agent({ model: faux.model, messages: [prompt, await answer("earlier")] });
    agent.steer("s1");
    agent.steer("s2");
    await agent.continue();
    const lastUserTexts = faux.contexts.map((context) => textOf(context.messages.at(-1) as never));
    expect(lastUserTexts).toEqual(["s1", "s2"]);
    expect(faux.contexts[0]?.messages.map((message) => textOf(message as never))).toEqual(["hi", "earlier", "s1"]);
  });

  test("setTools keeps its own copy of the array", () => {
    const faux = createFauxModel([]);
    const agent = new Agent({ model: faux.model });
    const tools: AnyAgentTool[] = [addTool];
    agent.setTools(tools);
    tools.push({ ...addTool, name: "other" });
    expect(agent.state.tools.map((tool) => tool.name)).toEqual(["add"]);
  });

  test("sends a sessionId changed on a live agent with the next model call", async () => {
    const faux = createFauxModel([text("a"), text("b")]);
    const seen: (string | undefined)[] = [];
    const streamFn: StreamFunction = (model, context, options: StreamOptions) => {
      seen.push(options.sessionId);
      return stream(model, context, options);
    };
    const agent = new Agent({ model: faux.model, streamFn, sessionId: "first" });
    expect(agent.sessionId).toBe("first");
    await agent.prompt("one");
    agent.sessionId = "second";
    await agent.prompt("two");
    expect(seen).toEqual(["first", "second"]);
  });

  test("reports prompt() and continue() misuse by rejecting the promise", async () => {
    const gate = defer();
    const slow: AnyAgentTool = {
      ...addTool,
      execute: async () => {
        await gate.promise;
        return { content: [{ type: "text", text: "2" }] };
      },
    };
    const faux = createFauxModel([{ content: [addCall(1)] }, text("done")]);
    const agent = new Agent({ model: faux.model, tools: [slow] });
    const running = agent.prompt("go");
    let promptError: unknown;
    let continueError: unknown;
    expect(() => {
      agent.prompt("again").catch((error: unknown) => {
        promptError = error;
      });
      agent.continue().catch((error: unknown) => {
        continueError = error;
      });
    }).not.toThrow();
    gate.resolve();
    await running;
    expect(String(promptError)).toContain("already running");
    expect(String(continueError)).toContain("already running");
    const idle = new Agent({ model: faux.model });
    await expect(idle.continue()).rejects.toThrow("nothing to continue");
  });
});

function roleOf(event: AgentEvent): string {
  return "message" in event && event.message && "role" in event.message ? event.message.role : "";
}

/** An assistant answer as a finished run records it. */
async function answer(value: string) {
  const faux = createFauxModel([text(value)]);
  return stream(faux.model, { messages: [] }).result();
}

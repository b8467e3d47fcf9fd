import { type StreamFunction, stream } from "@gyre/ai";
import { createFauxModel, type FauxScriptItem } from "@gyre/ai/testing";
import { describe, expect, test } from "vitest";
import { Agent, type AgentOptions } from "../src/agent.js";
import type { AgentEvent, AnyAgentTool } from "../src/types.js";
import { addTool, checkInvariants, defer, textOf } from "./helpers.js";

const addCall = (a: number) => ({ type: "toolCall" as const, name: "add", arguments: { a, b: 1 } });
const text = (value: string): FauxScriptItem => ({ content: [{ type: "text", text: value }] });

function createAgent(script: FauxScriptItem[], options: Partial<AgentOptions> = {}) {
  const faux = createFauxModel(script);
  const agent = new Agent({ model: faux.model, tools: [addTool], systemPrompt: "Be brief.", ...options });
  const events: AgentEvent[] = [];
  agent.subscribe((event) => {
    events.push(event);
  });
  return { agent, faux, events };
}

const userTexts = (agent: Agent) =>
  agent.state.messages.filter((message) => message.role === "user").map((message) => textOf(message));

describe("Agent", () => {
  test("runs a prompt and keeps the conversation in its state", async () => {
    const { agent, faux, events } = createAgent([{ content: [addCall(1)] }, text("2"), text("again")]);
    const result = await agent.prompt("1+1?");
    checkInvariants(events, result);
    expect(agent.state.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    expect(agent.state.isRunning).toBe(false);
    expect(faux.contexts[0]?.systemPrompt).toBe("Be brief.");
    await agent.prompt("and again?");
    expect(agent.state.messages).toHaveLength(6);
    expect(faux.contexts[2]?.messages).toHaveLength(5);
  });

  test("offers tools set during a run from the next turn on", async () => {
    const late: AnyAgentTool = { ...addTool, name: "late" };
    let agentRef: Agent | undefined;
    const adding: AnyAgentTool = {
      ...addTool,
      execute: async () => {
        agentRef?.setTools([addTool, late]);
        return { content: [{ type: "text", text: "added" }] };
      },
    };
    const lateCall = { type: "toolCall" as const, name: "late", arguments: { a: 1, b: 2 } };
    const { agent, faux } = createAgent([{ content: [addCall(1)] }, { content: [lateCall] }, text("done")], {
      tools: [adding],
    });
    agentRef = agent;
    await agent.prompt("go");
    expect(faux.contexts.map((context) => context.tools?.map((tool) => tool.name))).toEqual([
      ["add"],
      ["add", "late"],
      ["add", "late"],
    ]);
    const results = agent.state.messages.filter((message) => message.role === "toolResult");
    expect(results.map((message) => [message.toolName, textOf(message), message.isError])).toEqual([
      ["add", "added", false],
      ["late", "3", false],
    ]);
  });

  test("refuses a prompt while running and points to steer and followUp", async () => {
    const gate = defer();
    const slow: AnyAgentTool = {
      ...addTool,
      execute: async () => {
        await gate.promise;
        return { content: [] };
      },
    };
    const { agent } = createAgent([{ content: [addCall(1)] }, text("done")], { tools: [slow] });
    const running = agent.prompt("go");
    expect(agent.state.isRunning).toBe(true);
    await expect(agent.prompt("more")).rejects.toThrow(
      "The agent is already running, so it cannot prompt now: use steer() to add a message to the current run or followUp() to queue one for when it finishes.",
    );
    gate.resolve();
    await running;
    expect(agent.state.isRunning).toBe(false);
  });

  test("delivers steering one at a time, or all at once", async () => {
    for (const [mode, expected] of [
      ["one-at-a-time", [["s1"], ["s2"]]],
      ["all", [["s1", "s2"]]],
    ] as const) {
      const { agent, faux } = createAgent([{ content: [addCall(1)] }, text("a"), text("b")], { steeringMode: mode });
      agent.subscribe((event) => {
        if (event.type === "tool_execution_start") {
          agent.steer("s1");
          agent.steer("s2");
        }
      });
      await agent.prompt("go");
      // The user messages each later model call ends with: what that boundary delivered.
      const delivered = faux.contexts.slice(1).map((context) => {
        const tail = [];
        for (const message of [...context.messages].reverse()) {
          if (message.role !== "user") break;
          tail.unshift(textOf(message));
        }
        return tail;
      });
      expect(delivered).toEqual(expected);
      expect(userTexts(agent)).toEqual(["go", "s1", "s2"]);
      expect(faux.contexts).toHaveLength(expected.length + 1);
    }
  });

  test("runs follow-ups after the agent would stop", async () => {
    const { agent, faux } = createAgent([text("first"), text("second"), text("third")], { followUpMode: "all" });
    agent.subscribe((event) => {
      if (event.type === "agent_start") {
        agent.followUp("f1");
        agent.followUp("f2");
      }
    });
    await agent.prompt("go");
    expect(faux.contexts).toHaveLength(2);
    expect(userTexts(agent)).toEqual(["go", "f1", "f2"]);
    expect(agent.hasQueuedMessages()).toBe(false);
  });

  test("awaits listeners in order and survives a throwing one", async () => {
    const log: string[] = [];
    const errors: string[] = [];
    const { agent } = createAgent([text("hi")], {
      onListenerError: (error, event) => errors.push(`${event.type}: ${(error as Error).message}`),
    });
    agent.subscribe(async (event) => {
      await Promise.resolve();
      log.push(`slow ${event.type}`);
    });
    agent.subscribe((event) => {
      log.push(`fast ${event.type}`);
      if (event.type === "turn_start") throw new Error("renderer crashed");
    });
    const unsubscribe = agent.subscribe(() => {
      log.push("removed");
    });
    unsubscribe();
    const result = await agent.prompt("go");
    expect(result.reason).toBe("stop");
    expect(log.slice(0, 4)).toEqual(["slow agent_start", "fast agent_start", "slow turn_start", "fast turn_start"]);
    expect(log).not.toContain("removed");
    expect(errors).toEqual(["turn_start: renderer crashed"]);
  });

  test("exposes the streaming message and running tool calls", async () => {
    const seen: string[] = [];
    const { agent } = createAgent([{ content: [{ type: "text", text: "abcdefgh" }, addCall(1)] }, text("ok")]);
    agent.subscribe((event) => {
      if (event.type === "message_update" && event.event.type === "text_delta")
        seen.push(`text ${textOf(agent.state.streamingMessage)}`);
      if (event.type === "tool_execution_start") seen.push(`pending ${agent.state.pendingToolCalls.size}`);
      if (event.type === "tool_execution_end") seen.push(`pending ${agent.state.pendingToolCalls.size}`);
    });
    await agent.prompt("go");
    expect(seen).toEqual(["text abcd", "text abcdefgh", "pending 1", "pending 0", "text ok"]);
    expect(agent.state.streamingMessage).toBeUndefined();
  });

  test("aborts a run, records the error, and continues afterwards", async () => {
    const wait: AnyAgentTool = {
      ...addTool,
      execute: (_args, { signal }) =>
        new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("stopped")))),
    };
    const { agent } = createAgent([{ content: [addCall(1)] }, text("resumed")], { tools: [wait] });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") queueMicrotask(() => agent.abort());
    });
    const result = await agent.prompt("go");
    await agent.waitForIdle();
    expect(result.reason).toBe("aborted");
    expect(agent.state.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult"]);
    const resumed = await agent.continue();
    expect(resumed.reason).toBe("stop");
    expect(textOf(agent.state.messages.at(-1))).toBe("resumed");
  });

  test("records a failed model call as the state's error", async () => {
    const { agent } = createAgent([{ error: "rate limited" }]);
    await agent.prompt("go");
    expect(agent.state.error).toBe("rate limited");
  });

  test("refuses to continue when the assistant spoke last and nothing is queued", async () => {
    const { agent } = createAgent([text("hi"), text("queued answer")]);
    await expect(agent.continue()).rejects.toThrow("There is nothing to continue: the conversation is empty.");
    await agent.prompt("go");
    await expect(agent.continue()).rejects.toThrow("the last message is the assistant's answer");
    agent.followUp("one more");
    await agent.continue();
    expect(textOf(agent.state.messages.at(-1))).toBe("queued answer");
  });

  test("passes the thinking level and resets its conversation", async () => {
    const thinking: unknown[] = [];
    const streamFn: StreamFunction = (model, context, options) => {
      thinking.push(options.thinking);
      return stream(model, context, options);
    };
    const { agent } = createAgent([text("a"), text("b")], { streamFn, thinkingLevel: "high" });
    await agent.prompt("go");
    agent.setThinkingLevel("low");
    agent.reset();
    expect(agent.state.messages).toEqual([]);
    await agent.prompt("again");
    expect(thinking).toEqual(["high", "low"]);
    expect(agent.state.messages).toHaveLength(2);
  });
});

import { createAssistantMessage } from "@gyre/ai";
import { createFauxModel } from "@gyre/ai/testing";
import { Type } from "@sinclair/typebox";
import { describe, expect, test } from "vitest";
import { DROPPED_ARGUMENTS_KEY, measureToolArguments } from "../src/cap-tool-arguments.js";
import type { AgentEvent, AnyAgentTool } from "../src/types.js";
import { checkInvariants, collect, resultsOf, textOf, toolCallsOf } from "./helpers.js";

const user = (text: string) => ({ role: "user" as const, content: text, timestamp: 1 });

function createSaveTool(): { tool: AnyAgentTool; saved: string[] } {
  const saved: string[] = [];
  const tool: AnyAgentTool = {
    name: "save",
    label: "Save",
    description: "Saves text to a path.",
    parameters: Type.Object({ path: Type.String(), content: Type.String() }),
    execute: async (args: { path: string; content: string }) => {
      saved.push(args.content);
      return { content: [{ type: "text", text: `saved ${args.path}` }] };
    },
  };
  return { tool, saved };
}

async function runWithHugeCall(rawArguments?: string) {
  const huge = "x".repeat(20_000);
  const { tool, saved } = createSaveTool();
  const faux = createFauxModel([
    {
      content: [
        rawArguments === undefined
          ? { type: "toolCall", id: "big", name: "save", arguments: { path: "out.txt", content: huge } }
          : { type: "toolCall", id: "big", name: "save", arguments: rawArguments },
        { type: "toolCall", id: "small", name: "save", arguments: { path: "a.txt", content: "short" } },
      ],
    },
    { content: [{ type: "text", text: "done" }] },
  ]);
  const run = await collect({
    model: faux.model,
    context: { messages: [], tools: [tool] },
    prompts: [user("go")],
    maxToolArgumentBytes: 4096,
  });
  checkInvariants(run.events, run.result);
  return { ...run, faux, saved };
}

describe("tool calls with oversized arguments", () => {
  test("replaces the arguments with a placeholder before message_end and answers with an error", async () => {
    const { events, result, faux, saved } = await runWithHugeCall();
    const ends = events.filter((event): event is Extract<AgentEvent, { type: "message_end" }> => {
      return event.type === "message_end" && event.message.role === "assistant";
    });
    expect(JSON.stringify(ends[0]?.message).length).toBeLessThan(2000);
    const [big, small] = toolCallsOf(result.messages);
    expect(big?.arguments).toMatchObject({
      path: "out.txt",
      [DROPPED_ARGUMENTS_KEY]: { tool: "save", limitBytes: 4096 },
    });
    expect(big?.arguments.content).toBeUndefined();
    expect(small?.arguments).toEqual({ path: "a.txt", content: "short" });
    expect(saved).toEqual(["short"]);
    const [bigResult, smallResult] = resultsOf(result.messages);
    expect(bigResult?.isError).toBe(true);
    expect(textOf(bigResult)).toMatch(/was not run: its arguments were 20 KB, above the 4 KB limit/);
    expect(textOf(bigResult)).toMatch(/in pieces/);
    expect(smallResult?.isError).toBe(false);
    // The run goes on: the model's next request carries the error and no trace of the payload.
    expect(result.reason).toBe("stop");
    const second = JSON.stringify(faux.contexts[1]?.messages);
    expect(second).toContain("was not run: its arguments were 20 KB");
    expect(second.length).toBeLessThan(4000);
  });

  test("forwards no delta past the limit and caps the toolcall_end event", async () => {
    const { events } = await runWithHugeCall();
    let streamed = 0;
    for (const event of events) {
      if (event.type !== "message_update") continue;
      if (event.event.type === "toolcall_delta" && event.event.contentIndex === 0) streamed += event.event.delta.length;
      if (event.event.type === "toolcall_end" && event.event.contentIndex === 0)
        expect(event.event.toolCall.arguments[DROPPED_ARGUMENTS_KEY]).toBeDefined();
    }
    expect(streamed).toBeGreaterThan(0);
    expect(streamed).toBeLessThanOrEqual(4096);
  });

  test("drops oversized arguments that are not valid JSON too, raw text included", async () => {
    const raw = `{"path": "out.txt", "content": "${"y".repeat(20_000)}`;
    const { result } = await runWithHugeCall(raw);
    const [big] = toolCallsOf(result.messages);
    expect(big?.rawArguments).toBeUndefined();
    expect(big?.arguments[DROPPED_ARGUMENTS_KEY]).toMatchObject({ bytes: raw.length });
    expect(textOf(resultsOf(result.messages)[0])).toMatch(/above the 4 KB limit/);
  });

  test("counts argument size in UTF-8 bytes", () => {
    const call = { type: "toolCall" as const, id: "a", name: "t", arguments: { s: "é😀" } };
    expect(measureToolArguments(call)).toBe(new TextEncoder().encode(JSON.stringify(call.arguments)).length);
  });

  test("does not re-send an oversized call already in the history", async () => {
    const faux = createFauxModel([{ content: [{ type: "text", text: "ok" }] }]);
    const old = "z".repeat(50_000);
    const history = [
      user("write it"),
      {
        ...createAssistantMessage(faux.model, { stopReason: "toolUse" }),
        content: [{ type: "toolCall" as const, id: "old", name: "save", arguments: { path: "o.txt", content: old } }],
      },
      {
        role: "toolResult" as const,
        toolCallId: "old",
        toolName: "save",
        content: [{ type: "text" as const, text: "too big" }],
        isError: true,
        timestamp: 1,
      },
    ];
    const context = { messages: history, tools: [createSaveTool().tool] };
    await collect({ model: faux.model, context, prompts: [user("again")], maxToolArgumentBytes: 4096 });
    const sent = JSON.stringify(faux.contexts[0]?.messages);
    expect(sent.length).toBeLessThan(3000);
    expect(sent).toContain(DROPPED_ARGUMENTS_KEY);
    // The caller's history is left as it was.
    expect(JSON.stringify(history)).toContain(old);
  });
});

import { createFauxModel } from "@gyre/ai/testing";
import { Type } from "@sinclair/typebox";
import { describe, expect, test } from "vitest";
import { runAgentLoopWithListener } from "../src/run-agent-loop.js";
import type { AgentEvent, AgentLoopOptions, AnyAgentTool } from "../src/types.js";
import { addTool, checkInvariants, collect, contentText, defer, resultsOf, textOf } from "./helpers.js";

const user = (text: string) => ({ role: "user" as const, content: text, timestamp: 1 });

/** Runs a two-response script: the given tool calls, then "done". */
async function runCalls(
  calls: { name: string; arguments: Record<string, unknown> | string; id?: string }[],
  options: Partial<AgentLoopOptions> & { tools?: AnyAgentTool[]; stopReason?: "length" } = {},
) {
  const faux = createFauxModel([
    { content: calls.map((call) => ({ type: "toolCall" as const, ...call })), stopReason: options.stopReason },
    { content: [{ type: "text", text: "done" }] },
  ]);
  const run = await collect({
    ...options,
    model: faux.model,
    context: { messages: [], tools: options.tools ?? [addTool] },
    prompts: [user("go")],
  });
  checkInvariants(run.events, run.result);
  return { ...run, faux, results: resultsOf(run.result.messages) };
}

describe("tool calls", () => {
  test("runs a tool and feeds its result back to the model", async () => {
    const { results, faux, result } = await runCalls([{ name: "add", arguments: { a: 2, b: 3 } }]);
    expect(results.map(textOf)).toEqual(["5"]);
    expect(results[0]?.isError).toBe(false);
    expect(faux.contexts[1]?.messages.at(-1)).toMatchObject({ role: "toolResult", content: [{ text: "5" }] });
    expect(faux.contexts[1]?.tools?.map((tool) => Object.keys(tool).sort())).toEqual([
      ["description", "name", "parameters"],
    ]);
    expect(result.reason).toBe("stop");
    expect(result.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  });

  test("answers an unknown tool with an error naming the available tools", async () => {
    const { results } = await runCalls([{ name: "multiply", arguments: { a: 1 } }]);
    expect(results[0]?.isError).toBe(true);
    expect(textOf(results[0])).toBe(
      'Tool "multiply" does not exist. Available tools: "add". Call one of these instead.',
    );
  });

  test("says why a tool exists but is not offered when the host knows, instead of 'does not exist'", async () => {
    const { results } = await runCalls([{ name: "edit", arguments: {} }], {
      describeUnavailableTool: (name) => (name === "edit" ? "`edit` is unavailable in plan mode." : undefined),
    });
    expect(textOf(results[0])).toBe(
      '`edit` is unavailable in plan mode. Available tools: "add". Call one of these instead.',
    );
  });

  test("keeps the details a throwing tool attaches to its error, for UIs and totals", async () => {
    const partial: AnyAgentTool = {
      name: "partial",
      label: "Partial",
      description: "fails part-way",
      parameters: Type.Object({}),
      execute: async () => {
        throw Object.assign(new Error("It stopped half-way."), { details: { spent: 3 } });
      },
    };
    const { results } = await runCalls([{ name: "partial", arguments: {} }], { tools: [partial] });
    expect(results[0]).toMatchObject({ isError: true, details: { spent: 3 } });
    expect(textOf(results[0])).toBe("It stopped half-way.");
  });

  test("coerces string arguments to the schema's types", async () => {
    let received: unknown;
    const tool: AnyAgentTool = {
      name: "flags",
      label: "Flags",
      description: "Takes typed flags.",
      parameters: Type.Object({ count: Type.Number(), verbose: Type.Boolean() }),
      execute: async (args) => {
        received = args;
        return { content: [{ type: "text", text: "ok" }] };
      },
    };
    const { results } = await runCalls([{ name: "flags", arguments: { count: "10", verbose: "true" } }], {
      tools: [tool],
    });
    expect(received).toEqual({ count: 10, verbose: true });
    expect(results[0]?.isError).toBe(false);
  });

  test("answers a call to a tool whose schema is malformed with the reason, without running it", async () => {
    let ran = false;
    const malformed = (parameters: Record<string, unknown>): AnyAgentTool => ({
      name: "broken",
      label: "Broken",
      description: "Has a malformed schema.",
      parameters: parameters as AnyAgentTool["parameters"],
      execute: async () => {
        ran = true;
        return { content: [{ type: "text", text: "ran" }] };
      },
    });
    for (const parameters of [
      { type: "object", required: "path" },
      { type: "object", properties: { path: { type: "strng" } } },
      { type: "object", properties: { path: { minLength: "x" } } },
    ]) {
      const { results } = await runCalls([{ name: "broken", arguments: { path: "a" } }], {
        tools: [malformed(parameters)],
      });
      expect(results[0]?.isError).toBe(true);
      expect(textOf(results[0])).toContain("the tool's parameter schema does not compile");
    }
    expect(ran).toBe(false);
  });

  test("lists each validation problem with its path and the received arguments", async () => {
    let ran = false;
    const tool: AnyAgentTool = {
      ...addTool,
      parameters: Type.Object(
        { a: Type.Number(), b: Type.Number(), options: Type.Object({ mode: Type.Union([Type.Literal("x")]) }) },
        { additionalProperties: false },
      ),
      execute: async () => {
        ran = true;
        return { content: [] };
      },
    };
    const { results } = await runCalls([{ name: "add", arguments: { a: "ten", c: 1, options: { mode: "y" } } }], {
      tools: [tool],
    });
    const text = textOf(results[0]);
    expect(ran).toBe(false);
    expect(results[0]?.isError).toBe(true);
    expect(text).toContain('Invalid arguments for tool "add":');
    expect(text).toContain("- /a: must be number");
    expect(text).toContain('- /b: missing required property "b"');
    expect(text).toContain('- /c: unknown property "c"');
    expect(text).toContain("- /options/mode:");
    expect(text).toContain('Arguments received: {"a":"ten","c":1,"options":{"mode":"y"}}');
  });

  test("rejects arguments that are not valid JSON, quoting the raw text", async () => {
    const { results } = await runCalls([{ name: "add", arguments: '{"a": 1, "b": ' }]);
    expect(results[0]?.isError).toBe(true);
    expect(textOf(results[0])).toContain('Received: {"a": 1, "b": ');
    expect(textOf(results[0])).toContain("Re-issue the call with its arguments as one valid JSON object.");
  });

  test("runs prepareArguments before validation", async () => {
    const tool: AnyAgentTool = { ...addTool, prepareArguments: (args) => ({ a: args.x, b: args.y }) };
    const { results } = await runCalls([{ name: "add", arguments: { x: 4, y: 5 } }], { tools: [tool] });
    expect(textOf(results[0])).toBe("9");
  });

  test("turns a throwing tool into an error result with its message", async () => {
    const tool: AnyAgentTool = {
      ...addTool,
      execute: async () => {
        throw new Error("disk is full; free space and retry");
      },
    };
    const { results } = await runCalls([{ name: "add", arguments: { a: 1, b: 1 } }], { tools: [tool] });
    expect(results[0]).toMatchObject({ isError: true, content: [{ text: "disk is full; free space and retry" }] });
  });

  test("lets beforeToolCall block a call with a reason, after validation", async () => {
    const seen: unknown[] = [];
    const { results } = await runCalls(
      [
        { name: "add", arguments: { a: "1", b: 1 } },
        { name: "add", arguments: { a: 2, b: 2 } },
      ],
      {
        beforeToolCall: ({ args }) => {
          seen.push(args);
          return args.a === 1 ? { block: true, reason: "Adding 1 is not allowed here." } : undefined;
        },
      },
    );
    expect(seen).toEqual([
      { a: 1, b: 1 },
      { a: 2, b: 2 },
    ]);
    expect(results.map((result) => [textOf(result), result.isError])).toEqual([
      ["Adding 1 is not allowed here.", true],
      ["4", false],
    ]);
  });

  test("runs the tool with the arguments beforeToolCall returns, validated and coerced again", async () => {
    const { results } = await runCalls(
      [
        { name: "add", arguments: { a: 1, b: 1 } },
        { name: "add", arguments: { a: 5, b: 5 } },
      ],
      { beforeToolCall: ({ args }) => ({ args: args.a === 1 ? { a: "10", b: 20 } : { a: "not a number", b: 1 } }) },
    );
    expect(textOf(results[0])).toBe("30");
    expect(results[0]?.isError).toBe(false);
    expect(results[1]?.isError).toBe(true);
    expect(textOf(results[1])).toContain("beforeToolCall");
    expect(textOf(results[1])).toContain("Invalid arguments");
  });

  test("turns throwing hooks into error results", async () => {
    const before = await runCalls([{ name: "add", arguments: { a: 1, b: 1 } }], {
      beforeToolCall: () => {
        throw new Error("policy store offline");
      },
    });
    expect(textOf(before.results[0])).toBe('The beforeToolCall hook failed for "add": policy store offline');
    const after = await runCalls([{ name: "add", arguments: { a: 1, b: 1 } }], {
      afterToolCall: async () => {
        throw new Error("audit log offline");
      },
    });
    expect(after.results[0]).toMatchObject({ isError: true });
    expect(textOf(after.results[0])).toBe('The afterToolCall hook failed for "add": audit log offline');
  });

  test("lets afterToolCall replace the result field by field", async () => {
    const tool: AnyAgentTool = {
      ...addTool,
      execute: async (args) => ({
        content: [{ type: "text", text: String(args.a + args.b) }],
        details: { kept: true },
      }),
    };
    const { results, events } = await runCalls(
      [
        { name: "add", arguments: { a: 1, b: 1 } },
        { name: "add", arguments: { a: 2, b: 2 } },
      ],
      {
        tools: [tool],
        afterToolCall: ({ args, result }) =>
          args.a === 1
            ? { isError: true }
            : { content: [{ type: "text", text: `sum=${contentText(result.content)}` }] },
      },
    );
    expect(results.map((result) => [textOf(result), result.isError, result.details])).toEqual([
      ["2", true, { kept: true }],
      ["sum=4", false, { kept: true }],
    ]);
    const ends = events.filter((event) => event.type === "tool_execution_end");
    expect(ends.map((event) => event.isError)).toEqual([true, false]);
  });

  test("runs no call of a length-stopped response and asks the model to re-issue", async () => {
    let ran = 0;
    const tool: AnyAgentTool = {
      ...addTool,
      execute: async () => {
        ran++;
        return { content: [] };
      },
    };
    const { results, result, faux } = await runCalls(
      [
        { name: "add", arguments: { a: 1, b: 2 } },
        { name: "add", arguments: { a: 3, b: 4 } },
      ],
      { tools: [tool], stopReason: "length" },
    );
    expect(ran).toBe(0);
    expect(results).toHaveLength(2);
    for (const message of results) {
      expect(message.isError).toBe(true);
      expect(textOf(message)).toContain("its arguments may be truncated. Re-issue the call");
    }
    expect(faux.contexts).toHaveLength(2);
    expect(result.reason).toBe("stop");
  });

  test("emits tool_execution_update for onUpdate", async () => {
    const tool: AnyAgentTool = {
      ...addTool,
      execute: async (_args, { onUpdate }) => {
        onUpdate?.({ content: [{ type: "text", text: "half way" }] });
        return { content: [{ type: "text", text: "done" }] };
      },
    };
    const { events } = await runCalls([{ name: "add", arguments: { a: 1, b: 1 } }], { tools: [tool] });
    const kinds = events.filter((event) => event.type.startsWith("tool_execution")).map(describeToolEvent);
    expect(kinds).toEqual(["start add", "update half way", "end done"]);
  });
});

describe("batches", () => {
  function gatedTool(name: string, gates: Map<string, ReturnType<typeof defer<void>>>, log: string[]): AnyAgentTool {
    return {
      name,
      label: name,
      description: "Waits for its gate.",
      parameters: Type.Object({ id: Type.String() }),
      execute: async (args: { id: string }) => {
        log.push(`run ${args.id}`);
        await gates.get(args.id)?.promise;
        log.push(`done ${args.id}`);
        return { content: [{ type: "text", text: `result ${args.id}` }] };
      },
    };
  }

  test("runs calls in parallel: ends in completion order, results in call order", async () => {
    const gates = new Map([
      ["1", defer()],
      ["2", defer()],
    ]);
    const log: string[] = [];
    const tool = gatedTool("wait", gates, log);
    // Gate 2 opens as soon as both calls run; gate 1 only after call 2 has ended.
    const onEvent = (event: AgentEvent) => {
      if (event.type === "tool_execution_end" && event.toolCallId === "c2") gates.get("1")?.resolve();
    };
    const faux = createFauxModel([
      {
        content: [
          { type: "toolCall", id: "c1", name: "wait", arguments: { id: "1" } },
          { type: "toolCall", id: "c2", name: "wait", arguments: { id: "2" } },
        ],
      },
      { content: [{ type: "text", text: "ok" }] },
    ]);
    const events: AgentEvent[] = [];
    const tools = [
      {
        ...tool,
        execute: async (args: { id: string }, context: Parameters<AnyAgentTool["execute"]>[1]) => {
          const running = tool.execute(args, context);
          if (log.length === 2) gates.get("2")?.resolve();
          return running;
        },
      },
    ];
    const result = await runAgentLoopWithListener(
      { model: faux.model, context: { messages: [], tools }, prompts: [user("go")] },
      (event) => {
        events.push(event);
        onEvent(event);
      },
    );
    checkInvariants(events, result);
    expect(log).toEqual(["run 1", "run 2", "done 2", "done 1"]);
    const ends = events.filter((event) => event.type === "tool_execution_end").map((event) => event.toolCallId);
    expect(ends).toEqual(["c2", "c1"]);
    expect(resultsOf(result.messages).map((message) => message.toolCallId)).toEqual(["c1", "c2"]);
    const starts = events.flatMap((event, index) => (event.type === "tool_execution_start" ? [index] : []));
    const firstEnd = events.findIndex((event) => event.type === "tool_execution_end");
    expect(starts.every((index) => index < firstEnd)).toBe(true);
  });

  async function runLogged(options: { sequentialTool?: boolean; loopOption?: boolean }) {
    const log: string[] = [];
    const make = (name: string, sequential: boolean): AnyAgentTool => ({
      name,
      label: name,
      description: "Logs.",
      parameters: Type.Object({ id: Type.String() }),
      ...(sequential ? { executionMode: "sequential" as const } : {}),
      execute: async (args: { id: string }) => {
        log.push(`start ${args.id}`);
        await Promise.resolve();
        await Promise.resolve();
        log.push(`end ${args.id}`);
        return { content: [{ type: "text", text: args.id }] };
      },
    });
    await runCalls(
      [
        { name: "a", arguments: { id: "1" } },
        { name: "b", arguments: { id: "2" } },
      ],
      {
        tools: [make("a", false), make("b", options.sequentialTool === true)],
        ...(options.loopOption ? { toolExecution: "sequential" as const } : {}),
      },
    );
    return log;
  }

  test("makes the whole batch sequential when one tool asks for it", async () => {
    expect(await runLogged({})).toEqual(["start 1", "start 2", "end 1", "end 2"]);
    expect(await runLogged({ sequentialTool: true })).toEqual(["start 1", "end 1", "start 2", "end 2"]);
  });

  test("runs batches sequentially with the loop option", async () => {
    expect(await runLogged({ loopOption: true })).toEqual(["start 1", "end 1", "start 2", "end 2"]);
  });
});

function describeToolEvent(event: AgentEvent): string {
  if (event.type === "tool_execution_start") return `start ${event.toolName}`;
  if (event.type === "tool_execution_update") return `update ${contentText(event.partialResult.content)}`;
  if (event.type === "tool_execution_end") return `end ${contentText(event.result.content)}`;
  return event.type;
}

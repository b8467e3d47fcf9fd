import type { AgentMessage } from "@gyre/agent";
import { Agent, type AgentTool, type AnyAgentTool } from "@gyre/agent";
import { type Context, stream, type ToolResultMessage } from "@gyre/ai";
import { createFauxModel, type FauxResponse } from "@gyre/ai/testing";
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { createGovernor } from "../governor/governor.js";
import { BUILT_IN_AGENTS } from "./agent-definitions.js";
import { createSubagentTree, createTaskTool, type SubagentEvent } from "./task-tool.js";
import { createTreeBudget } from "./tree-budget.js";

const lastUserText = (context: Context) => {
  const user = context.messages.find((message) => message.role === "user");
  return typeof user?.content === "string" ? user.content : "";
};

/** A tool that records how many of its calls overlap, and which agent called it. */
const probeParameters = Type.Object({ name: Type.String() });

function createProbeTool(
  log: { active: number; peak: number; calls: string[] },
  gate?: Promise<void>,
): AgentTool<typeof probeParameters> {
  return {
    name: "probe",
    label: "Probe",
    description: "probe",
    parameters: probeParameters,
    async execute(args, { signal }) {
      log.active++;
      log.peak = Math.max(log.peak, log.active);
      log.calls.push(args.name);
      try {
        const aborted = new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        await Promise.race([gate ?? new Promise((resolve) => setTimeout(resolve, 30)), aborted]);
        signal.throwIfAborted();
        return { content: [{ type: "text", text: `probed ${args.name}` }] };
      } finally {
        log.active--;
      }
    },
  };
}

/** A child model: calls probe once with the name from its prompt, then answers. */
function createChildModel() {
  return createFauxModel(
    [
      (context): FauxResponse => {
        const name = lastUserText(context);
        const probed = context.messages.some((message) => message.role === "toolResult");
        if (!probed) return { content: [{ type: "toolCall", name: "probe", arguments: { name } }] };
        return { content: [{ type: "text", text: `done with ${name}` }] };
      },
    ],
    { whenExhausted: "repeat-last" },
  );
}

function fanOut(count: number, agent = "general"): FauxResponse {
  return {
    content: Array.from({ length: count }, (_, n) => ({
      type: "toolCall" as const,
      name: "task",
      arguments: { description: `part ${n}`, prompt: `part-${n}`, agent },
    })),
  };
}

/** A governor of `maxTurns` whose question always raises it to 10, recording what was asked and raised. */
function raisingGovernor(maxTurns: number) {
  const governor = createGovernor({ budgets: { maxTurns } });
  const asked: string[] = [];
  const raised: string[] = [];
  const pauseAtBudget = (signal: AbortSignal) =>
    governor.pauseAtBudget(
      async (reached) => {
        asked.push(reached.reason);
        return { maxTurns: 10 };
      },
      signal,
      (_limits, reached) => raised.push(reached.budget),
    );
  return { governor, asked, raised, pauseAtBudget };
}

function setup(
  options: {
    parallel?: number;
    budget?: ReturnType<typeof createTreeBudget>;
    gate?: Promise<void>;
    pauseAtBudget?: (signal: AbortSignal) => Promise<boolean>;
  } = {},
) {
  const log = { active: 0, peak: 0, calls: [] as string[] };
  const child = createChildModel();
  const events: SubagentEvent[] = [];
  const journals: Record<string, AgentMessage[]> = {};
  const tree = createSubagentTree(options.budget ?? createTreeBudget(), { maxParallel: options.parallel ?? 4 });
  const baseTools: AnyAgentTool[] = [createProbeTool(log, options.gate)];
  const task = createTaskTool({
    definitions: BUILT_IN_AGENTS.map((definition) => ({
      ...definition,
      tools: definition.name === "explore" ? ["read"] : undefined,
    })),
    tools: () => baseTools,
    model: () => child.model,
    tree,
    onEvent: (event) => events.push(event),
    openJournal: ({ parentToolCallId }) => {
      const messages: AgentMessage[] = [];
      journals[parentToolCallId] = messages;
      return { path: `/sessions/${parentToolCallId}.jsonl`, append: (message) => messages.push(message) };
    },
    ...(options.pauseAtBudget === undefined ? {} : { pauseAtBudget: options.pauseAtBudget }),
  });
  return { log, child, events, journals, tree, tools: [...baseTools, task] };
}

const results = (messages: readonly AgentMessage[]) =>
  messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
const text = (result: ToolResultMessage | undefined) =>
  result?.content[0]?.type === "text" ? result.content[0].text : "";

describe("task tool", () => {
  it("fans out five subagents in parallel under the cap and returns each final answer with its account", async () => {
    const { log, events, journals, tree, tools } = setup({ parallel: 3 });
    const parent = createFauxModel([fanOut(5), { content: [{ type: "text", text: "all parts done" }] }]);
    const agent = new Agent({ model: parent.model, tools });
    const run = await agent.prompt("split the work");
    expect(run.reason).toBe("stop");
    const taskResults = results(run.messages);
    expect(taskResults).toHaveLength(5);
    for (const [n, result] of taskResults.entries()) {
      expect(result.isError).toBe(false);
      expect(text(result)).toMatch(
        new RegExp(
          `^done with part-${n}\\n\\n\\[subagent general: 2 model calls, 1 tool call, \\d+ tokens, \\$0\\.0000; ended: stop\\]$`,
        ),
      );
      expect(result.details).toMatchObject({
        agent: "general",
        turns: 2,
        toolCalls: 1,
        sessionFile: `/sessions/${result.toolCallId}.jsonl`,
      });
      expect(journals[result.toolCallId]?.map((message) => message.role)).toEqual([
        "user",
        "assistant",
        "toolResult",
        "assistant",
      ]);
    }
    expect(log.peak).toBe(3);
    expect(log.calls.sort()).toEqual(["part-0", "part-1", "part-2", "part-3", "part-4"]);
    expect(tree.spawned).toBe(5);
    expect(
      tree.budget
        .breakdown()
        .map((entry) => entry.agent)
        .sort(),
    ).toEqual(["general#1", "general#2", "general#3", "general#4", "general#5"]);
    const parents = new Set(events.map((event) => event.parentToolCallId));
    expect([...parents].sort()).toEqual(taskResults.map((result) => result.toolCallId).sort());
    expect(events.some((event) => event.event.type === "tool_execution_end")).toBe(true);
  });

  it("gives the read-only agent only its tools and refuses tools it does not have", async () => {
    const { tools } = setup();
    const parent = createFauxModel([
      {
        content: [
          {
            type: "toolCall",
            name: "task",
            arguments: { description: "look", prompt: "x", agent: "explore", tools: ["probe"] },
          },
        ],
      },
      {
        content: [{ type: "toolCall", name: "task", arguments: { description: "look", prompt: "x", agent: "nobody" } }],
      },
      { content: [{ type: "text", text: "ok" }] },
    ]);
    const run = await new Agent({ model: parent.model, tools }).prompt("go");
    const [restricted, unknown] = results(run.messages);
    expect(restricted?.isError).toBe(true);
    expect(text(restricted)).toMatch(/Agent "explore" cannot use probe; its tools are none\./);
    expect(text(unknown)).toMatch(/There is no agent "nobody"\. Available agents: general, explore\./);
  });

  it("aborts every running subagent when the parent is aborted mid-fan-out", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { log, tools } = setup({ gate });
    const parent = createFauxModel([fanOut(3), { content: [{ type: "text", text: "never" }] }]);
    const agent = new Agent({ model: parent.model, tools });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_update" && log.active === 3) agent.abort();
    });
    const running = agent.prompt("go");
    const run = await running;
    release();
    expect(run.reason).toBe("aborted");
    const taskResults = results(run.messages);
    expect(taskResults).toHaveLength(3);
    expect(taskResults.every((result) => result.isError)).toBe(true);
    expect(log.active).toBe(0);
  });

  it("reports a subagent whose model fails as an error result the parent can act on", async () => {
    const { tools } = setup();
    const failing = createFauxModel([{ content: [{ type: "text", text: "half" }], error: "upstream exploded" }]);
    const task = tools.find((tool) => tool.name === "task");
    const withFailingChild = createTaskTool({
      definitions: BUILT_IN_AGENTS,
      tools: () => tools.filter((tool) => tool !== task),
      model: () => failing.model,
      tree: createSubagentTree(createTreeBudget()),
    });
    const parent = createFauxModel([fanOut(1), { content: [{ type: "text", text: "handled" }] }]);
    const run = await new Agent({ model: parent.model, tools: [withFailingChild] }).prompt("go");
    const [result] = results(run.messages);
    expect(result?.isError).toBe(true);
    expect(text(result)).toMatch(/^The subagent did not finish: .*upstream exploded/);
    expect(run.reason).toBe("stop");
  });

  it("stops the children when the tree's turn budget is spent, and refuses new spawns", async () => {
    const budget = createTreeBudget({ maxTurns: 2 });
    const { tools, tree } = setup({ budget, parallel: 1 });
    const parent = createFauxModel([fanOut(2), { content: [{ type: "text", text: "end" }] }]);
    const agent = new Agent({ model: parent.model, tools });
    agent.subscribe((event) => {
      if (event.type === "message_end" && event.message.role === "assistant") budget.charge("main", event.message);
    });
    const run = await agent.prompt("go");
    const [first, second] = results(run.messages);
    expect(first?.isError).toBe(true);
    expect(text(first)).toMatch(/The subagent did not finish: The turn budget of the agent tree is reached \(2 of 2\)/);
    expect(text(second)).toMatch(/budget of the agent tree is reached.*No subagent was started\./);
    expect(tree.spawned).toBe(1);
    expect(budget.total().turns).toBe(3);
    expect(budget.breakdown()).toEqual([
      expect.objectContaining({ agent: "main", turns: 2 }),
      expect.objectContaining({ agent: "general#1", turns: 1 }),
    ]);
  });

  it("caps the depth and the number of spawns of a tree", async () => {
    const child = createChildModel();
    const tree = createSubagentTree(createTreeBudget(), { maxSpawns: 2, maxDepth: 1 });
    const task = createTaskTool({ definitions: BUILT_IN_AGENTS, tools: () => [], model: () => child.model, tree });
    const parent = createFauxModel([fanOut(3), { content: [{ type: "text", text: "end" }] }]);
    const run = await new Agent({ model: parent.model, tools: [task] }).prompt("go");
    const errors = results(run.messages).filter((result) => result.isError);
    expect(errors.map(text)).toEqual([expect.stringMatching(/already started 2 subagents, the limit/)]);
    const deep = createTaskTool({
      definitions: BUILT_IN_AGENTS,
      tools: () => [],
      model: () => child.model,
      tree,
      depth: 1,
    });
    await expect(
      deep.execute({ description: "d", prompt: "p" }, { toolCallId: "x", signal: new AbortController().signal }),
    ).rejects.toThrow(/limited to a depth of 1/);
  });

  it("pauses the whole tree at the budget once, and each subagent goes on where it stopped once raised", async () => {
    const { governor, asked, raised, pauseAtBudget } = raisingGovernor(2);
    const { tools, journals, log } = setup({ budget: governor.budget, pauseAtBudget });
    const parent = createFauxModel([fanOut(2), { content: [{ type: "text", text: "end" }] }]);
    const agent = new Agent({ model: parent.model, tools });
    agent.subscribe((event) => void governor.observe(event));
    const run = await agent.prompt("go");
    // Both children's first calls were in flight together: one question for the two of them.
    expect(asked).toEqual(["The turn budget of the agent tree is reached (3 of 2)."]);
    expect(raised).toEqual(["turns"]);
    expect(results(run.messages).map((result) => [result.isError, text(result).split("\n")[0]])).toEqual([
      [false, "done with part-0"],
      [false, "done with part-1"],
    ]);
    // No work was done twice: one probe per subagent, and each journal is one prompt carried on.
    expect(log.calls.sort()).toEqual(["part-0", "part-1"]);
    for (const messages of Object.values(journals)) {
      expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    }
    expect(governor.budget.limits.maxTurns).toBe(10);
  });

  it("asks before refusing a spawn at the budget, and a raise starts the subagent", async () => {
    const { governor, asked, pauseAtBudget } = raisingGovernor(1);
    const { tools, tree, log } = setup({ budget: governor.budget, pauseAtBudget });
    // The parent's first turn spends the whole budget, and that turn asks for a subagent.
    const parent = createFauxModel([fanOut(1), { content: [{ type: "text", text: "end" }] }]);
    const agent = new Agent({ model: parent.model, tools });
    agent.subscribe((event) => void governor.observe(event));
    const run = await agent.prompt("go");
    expect(asked).toEqual(["The turn budget of the agent tree is reached (1 of 1)."]);
    const [result] = results(run.messages);
    expect(result?.isError).toBe(false);
    expect(text(result)).not.toContain("No subagent was started");
    expect(text(result).split("\n")[0]).toBe("done with part-0");
    expect(tree.spawned).toBe(1);
    expect(log.calls).toEqual(["part-0"]);
  });

  it("ends a subagent with reason budget when the user says stop, and asks nobody again in that request", async () => {
    const governor = createGovernor({ budgets: { maxTurns: 2 } });
    let asked = 0;
    const question = async () => {
      asked++;
      return undefined;
    };
    const { tools } = setup({
      budget: governor.budget,
      parallel: 1,
      pauseAtBudget: (signal) => governor.pauseAtBudget(question, signal, () => {}),
    });
    const parent = createFauxModel([fanOut(1), { content: [{ type: "text", text: "end" }] }]);
    const agent = new Agent({ model: parent.model, tools });
    agent.subscribe((event) => void governor.observe(event));
    const [result] = results((await agent.prompt("go")).messages);
    expect(result?.isError).toBe(true);
    expect(text(result)).toMatch(/The subagent did not finish: The turn budget .* \(2 of 2\)[\s\S]*ended: budget\]/);
    expect(result?.details).toMatchObject({
      reason: "budget",
      usage: expect.objectContaining({ totalTokens: expect.any(Number) }),
    });
    expect(await governor.pauseAtBudget(question, new AbortController().signal, () => {})).toBe(false);
    expect(asked).toBe(1);
    governor.startRequest();
    governor.budget.charge("main", { usage: { totalTokens: 1, cost: { total: 0 } } } as never);
    governor.budget.charge("main", { usage: { totalTokens: 1, cost: { total: 0 } } } as never);
    expect(await governor.pauseAtBudget(question, new AbortController().signal, () => {})).toBe(false);
    expect(asked).toBe(2);
  });

  it("gives subagents the parent's web search when their definition allows it, and only then", async () => {
    const child = createChildModel();
    const searched: Record<string, boolean> = {};
    const definitions = [
      ...BUILT_IN_AGENTS,
      { ...BUILT_IN_AGENTS[1]!, name: "researcher", tools: ["probe", "web_search"] },
    ];
    const runTask = async (parentSearches: boolean, args: Record<string, unknown>) => {
      const task = createTaskTool({
        definitions,
        tools: () => [createProbeTool({ active: 0, peak: 0, calls: [] })],
        model: () => child.model,
        tree: createSubagentTree(createTreeBudget()),
        webSearch: () => parentSearches,
        loop: {
          streamFn: (model, context, options) => {
            searched[lastUserText(context)] = options?.webSearch === true;
            return stream(model, context, options);
          },
        },
      });
      const signal = new AbortController().signal;
      return task.execute({ description: "d", prompt: String(args.prompt), ...args }, { toolCallId: "t", signal });
    };
    await runTask(true, { prompt: "general-searching" });
    await runTask(true, { prompt: "explore-not", agent: "explore" });
    await runTask(true, { prompt: "researcher-searching", agent: "researcher" });
    await runTask(true, { prompt: "restricted-not", tools: ["probe"] });
    await runTask(true, { prompt: "restricted-searching", tools: ["probe", "web_search"] });
    await runTask(false, { prompt: "parent-without" });
    expect(searched).toEqual({
      "general-searching": true,
      "explore-not": false,
      "researcher-searching": true,
      "restricted-not": false,
      "restricted-searching": true,
      "parent-without": false,
    });
    await expect(runTask(false, { prompt: "asks", tools: ["web_search"] })).rejects.toThrow(
      'Agent "general" cannot use web_search; its tools are probe.',
    );
  });

  it("gives a subagent that may use bash the background shells' bash_output and kill_shell with it", async () => {
    const offered: string[][] = [];
    const child = createFauxModel(
      [
        (context): FauxResponse => {
          offered.push((context.tools ?? []).map((tool) => tool.name));
          return { content: [{ type: "text", text: "ok" }] };
        },
      ],
      { whenExhausted: "repeat-last" },
    );
    const named = (name: string): AnyAgentTool => ({ ...createProbeTool({ active: 0, peak: 0, calls: [] }), name });
    const task = createTaskTool({
      definitions: [...BUILT_IN_AGENTS, { ...BUILT_IN_AGENTS[1]!, name: "runner", tools: ["read", "bash"] }],
      tools: () => ["read", "bash", "bash_output", "kill_shell", "grep"].map(named),
      model: () => child.model,
      tree: createSubagentTree(createTreeBudget()),
    });
    const signal = new AbortController().signal;
    await task.execute({ description: "d", prompt: "p", agent: "runner" }, { toolCallId: "t1", signal });
    await task.execute({ description: "d", prompt: "p", tools: ["bash"] }, { toolCallId: "t2", signal });
    await task.execute({ description: "d", prompt: "p", tools: ["grep"] }, { toolCallId: "t3", signal });
    expect(offered).toEqual([
      ["read", "bash", "bash_output", "kill_shell"],
      ["bash", "bash_output", "kill_shell"],
      ["grep"],
    ]);
  });
});

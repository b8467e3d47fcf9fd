/**
 * The task tool (docs/design/delegation.md): the model hands a self-contained task to a subagent and gets its
 * final answer back as the tool result, with a one-line account of what it did and cost.
 * Several task calls of one turn run in parallel up to `maxParallel`; depth and the number of
 * spawns per tree are capped; the tree's budget covers every subagent.
 */
import type { AgentEvent, AgentLoopConfig, AgentTool, AnyAgentTool } from "@gyre/agent";
import type { Model, Usage } from "@gyre/ai";
import { Type } from "@sinclair/typebox";
import type { AgentDefinition } from "./agent-definitions.js";
import { runSubagent, type SubagentJournal, type SubagentOutcome } from "./run-subagent.js";
import type { TreeBudget } from "./tree-budget.js";

const taskParameters = Type.Object({
  description: Type.String({ minLength: 1, description: "A short (3-8 word) name for the task, shown to the user." }),
  prompt: Type.String({
    minLength: 1,
    description:
      "The whole task for the subagent: it sees nothing of this conversation, so include every fact it needs.",
  }),
  agent: Type.Optional(Type.String({ description: "Which agent runs it (default general)." })),
  tools: Type.Optional(
    Type.Array(Type.String(), {
      description: "Restrict the subagent to these of its tools (web_search: your web search, if you have it).",
    }),
  ),
});

export type TaskToolDetails = {
  agent: string;
  description: string;
  reason: SubagentOutcome["reason"];
  turns: number;
  toolCalls: number;
  tokens: number;
  cost: number;
  /** Tokens and USD of the subagent and the subagents it started: the session's totals count it. */
  usage: Usage;
  sessionFile?: string;
};

/** Shared by every task tool of one agent tree. */
export type SubagentTree = {
  budget: TreeBudget;
  /** Subagents started so far in the whole tree. */
  spawned: number;
  limits: { maxDepth: number; maxSpawns: number; maxParallel: number };
};

/** A subagent's event as the wire modes send it (docs/design/delegation.md). */
export type SubagentEvent = { parentToolCallId: string; agent: string; event: AgentEvent };

export type TaskToolOptions = {
  definitions: readonly AgentDefinition[];
  /** The tools subagents may be given (the parent's, without task). */
  tools: () => readonly AnyAgentTool[];
  /** The model of the agent that calls the tool. */
  model: () => Model;
  /** Finds a definition's `model`; undefined means unknown (the call fails, naming it). */
  resolveModel?: (id: string) => Model | undefined;
  tree: SubagentTree;
  /** 0 for the main agent. */
  depth?: number;
  /** Opens the subagent's own journal (a session file linked from the parent's). */
  openJournal?: (info: { parentToolCallId: string; agent: string }) => SubagentJournal | undefined;
  onEvent?: (event: SubagentEvent) => void;
  loop?: Pick<AgentLoopConfig, "streamFn" | "getApiKey" | "streamOptions" | "beforeToolCall" | "afterToolCall">;
  /**
   * Whether the calling agent has the provider's server-side web search; its subagents get it
   * too when their definition allows it (no `tools` list, or one naming `web_search`).
   */
  webSearch?: () => boolean;
  /** Pauses the tree at a reached budget to ask whether to go on (`SubagentRun.pauseAtBudget`). */
  pauseAtBudget?: (signal: AbortSignal) => Promise<boolean>;
};

/** Creates a subagent tree with these limits (defaults: depth 1, 50 spawns, 4 in parallel). */
export function createSubagentTree(budget: TreeBudget, limits: Partial<SubagentTree["limits"]> = {}): SubagentTree {
  return { budget, spawned: 0, limits: { maxDepth: 1, maxSpawns: 50, maxParallel: 4, ...limits } };
}

/** Creates the task tool for an agent at `depth`. */
export function createTaskTool(options: TaskToolOptions): AgentTool<typeof taskParameters, TaskToolDetails> {
  const depth = options.depth ?? 0;
  const slots = createSlots(options.tree.limits.maxParallel);
  const names = options.definitions.map((definition) => `${definition.name} (${definition.description})`);
  return {
    name: "task",
    label: "Task",
    description:
      "Hand a self-contained task to a subagent with its own context and get its final answer back. Use it for work that " +
      "needs much reading or searching, or for independent parts you can run in parallel (several task calls in one turn run " +
      `at the same time). The subagent sees only your prompt. Agents: ${names.join("; ")}.`,
    parameters: taskParameters,
    async execute(args, { toolCallId, signal, onUpdate }) {
      const definition = pickDefinition(options.definitions, args.agent);
      const { tree } = options;
      if (depth >= tree.limits.maxDepth) {
        throw new Error(`Subagents are limited to a depth of ${tree.limits.maxDepth}; do this task yourself.`);
      }
      const model = definition.model === undefined ? options.model() : resolveDefinitionModel(definition, options);
      const search = allowsWebSearch(definition, args.tools, options);
      const tools = selectTools(definition, args.tools, options, search);
      // Wait for a slot before checking the budget: the calls ahead may spend it.
      await slots.acquire(signal);
      try {
        if (tree.spawned >= tree.limits.maxSpawns) {
          throw new Error(
            `This run already started ${tree.limits.maxSpawns} subagents, the limit; finish the work yourself.`,
          );
        }
        // At the budget, the user is asked first (where someone can answer): a raise starts this
        // subagent, so the model never sees a refusal the user then overrides.
        let reached = tree.budget.check();
        while (reached !== undefined && (await options.pauseAtBudget?.(signal))) reached = tree.budget.check();
        if (reached !== undefined) throw new Error(`${reached.reason} No subagent was started.`);
        tree.spawned++;
        const label = `${definition.name}#${tree.spawned}`;
        const childTools =
          depth + 1 < tree.limits.maxDepth
            ? [...tools, createTaskTool({ ...options, depth: depth + 1, model: () => model, webSearch: () => search })]
            : tools;
        onUpdate?.({ content: [{ type: "text", text: `${label}: started` }] });
        const outcome = await runSubagent({
          label,
          prompt: args.prompt,
          systemPrompt: definition.systemPrompt,
          model,
          ...(definition.thinking === undefined ? {} : { thinkingLevel: definition.thinking }),
          tools: childTools,
          budget: tree.budget,
          signal,
          journal: options.openJournal?.({ parentToolCallId: toolCallId, agent: definition.name }),
          onEvent: (event) => {
            options.onEvent?.({ parentToolCallId: toolCallId, agent: label, event });
            const status = describeProgress(event);
            if (status !== undefined) onUpdate?.({ content: [{ type: "text", text: `${label}: ${status}` }] });
          },
          ...(options.loop === undefined && !search ? {} : { loop: withWebSearch(options.loop, search) }),
          ...(options.pauseAtBudget === undefined ? {} : { pauseAtBudget: options.pauseAtBudget }),
        });
        return toResult(definition.name, args.description, outcome);
      } finally {
        slots.release();
      }
    },
  };
}

function pickDefinition(definitions: readonly AgentDefinition[], name: string | undefined): AgentDefinition {
  const wanted = name ?? "general";
  const found = definitions.find((definition) => definition.name === wanted);
  if (found !== undefined) return found;
  throw new Error(
    `There is no agent "${wanted}". Available agents: ${definitions.map((definition) => definition.name).join(", ")}.`,
  );
}

function resolveDefinitionModel(definition: AgentDefinition, options: TaskToolOptions): Model {
  const model = definition.model === undefined ? undefined : options.resolveModel?.(definition.model);
  if (model !== undefined) return model;
  throw new Error(
    `Agent "${definition.name}" asks for model "${definition.model}", which is not configured; fix ${definition.source} or pick another agent.`,
  );
}

/** The pseudo tool name of the provider's web search in agent definitions and the `tools` argument. */
const WEB_SEARCH = "web_search";

function allowsWebSearch(
  definition: AgentDefinition,
  requested: readonly string[] | undefined,
  options: TaskToolOptions,
): boolean {
  if (options.webSearch?.() !== true) return false;
  const byDefinition = definition.tools === undefined || definition.tools.includes(WEB_SEARCH);
  return byDefinition && (requested === undefined || requested.includes(WEB_SEARCH));
}

function selectTools(
  definition: AgentDefinition,
  requested: readonly string[] | undefined,
  options: TaskToolOptions,
  search: boolean,
): AnyAgentTool[] {
  const available = options.tools().filter((tool) => tool.name !== "task");
  const named = definition.tools === undefined ? undefined : withShellTools(definition.tools);
  const allowed = named === undefined ? available : available.filter((tool) => named.includes(tool.name));
  if (requested === undefined) return allowed;
  const unknown = requested.filter(
    (name) => !(name === WEB_SEARCH && search) && !allowed.some((tool) => tool.name === name),
  );
  if (unknown.length > 0) {
    const names = [...allowed.map((tool) => tool.name), ...(search ? [WEB_SEARCH] : [])];
    throw new Error(
      `Agent "${definition.name}" cannot use ${unknown.join(", ")}; its tools are ${names.join(", ") || "none"}.`,
    );
  }
  const wanted = withShellTools(requested);
  return allowed.filter((tool) => wanted.includes(tool.name));
}

/** `bash` comes with the tools of its background shells wherever it is named. */
function withShellTools(names: readonly string[]): readonly string[] {
  return names.includes("bash") ? [...names, "bash_output", "kill_shell"] : names;
}

/** The loop options of a subagent: the parent's, plus the provider's web search when it gets it. */
function withWebSearch(loop: TaskToolOptions["loop"], search: boolean): NonNullable<TaskToolOptions["loop"]> {
  if (!search) return { ...loop };
  return { ...loop, streamOptions: { ...loop?.streamOptions, webSearch: true } };
}

function describeProgress(event: AgentEvent): string | undefined {
  if (event.type === "tool_execution_start") {
    const target = event.args.path ?? event.args.command ?? event.args.pattern ?? event.args.url;
    return `${event.toolName}${typeof target === "string" ? ` ${target.slice(0, 80)}` : ""}`;
  }
  if (event.type === "turn_start") return "thinking";
  return undefined;
}

function toResult(agent: string, description: string, outcome: SubagentOutcome) {
  const details: TaskToolDetails = {
    agent,
    description,
    reason: outcome.reason,
    turns: outcome.turns,
    toolCalls: outcome.toolCalls,
    tokens: outcome.tokens,
    cost: outcome.cost,
    usage: outcome.usage,
    ...(outcome.sessionFile === undefined ? {} : { sessionFile: outcome.sessionFile }),
  };
  const account = `[subagent ${agent}: ${plural(outcome.turns, "model call")}, ${plural(outcome.toolCalls, "tool call")}, ${outcome.tokens} tokens, $${outcome.cost.toFixed(4)}; ended: ${outcome.reason}]`;
  if (outcome.reason === "error" || outcome.reason === "aborted" || outcome.reason === "budget") {
    const why =
      outcome.budgetReached?.reason ??
      outcome.errorMessage ??
      (outcome.reason === "aborted" ? "It was aborted." : "It failed.");
    const partial = outcome.text === "" ? "" : `\nIts last answer before that:\n${outcome.text}`;
    throw Object.assign(new Error(`The subagent did not finish: ${why}${partial}\n${account}`), { details });
  }
  return {
    content: [{ type: "text" as const, text: `${outcome.text || "(the subagent gave no answer)"}\n\n${account}` }],
    details,
  };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** A counting semaphore whose waiters give up when their signal fires. */
function createSlots(size: number) {
  let free = size;
  const waiting: (() => void)[] = [];
  return {
    async acquire(signal: AbortSignal): Promise<void> {
      signal.throwIfAborted();
      if (free > 0) {
        free--;
        return;
      }
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          waiting.splice(waiting.indexOf(grant), 1);
          reject(signal.reason);
        };
        const grant = () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        };
        waiting.push(grant);
        signal.addEventListener("abort", onAbort, { once: true });
      });
    },
    release(): void {
      const next = waiting.shift();
      if (next === undefined) free++;
      else next();
    },
  };
}

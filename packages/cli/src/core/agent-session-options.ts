import {
  type AfterToolCallInput,
  type AfterToolCallResult,
  Agent,
  type AgentBudgets,
  type AgentMessage,
  type AnyAgentTool,
  type BeforeToolCallInput,
  type BeforeToolCallResult,
  type TurnEndContext,
} from "@gyre/agent";
import { describeError, type Model, type RetryOptions, type StreamFunction, type ThinkingLevel } from "@gyre/ai";
import type { WorkspaceCheckpoints } from "./checkpoints/workspace-checkpoints.js";
import type { AutoCompactionOptions } from "./compaction/auto-compaction.js";
import { extensionAgentOptions } from "./extensions/extension-bridge.js";
import type { ExtensionRunner } from "./extensions/extension-runner.js";
import type { InputResolution } from "./extensions/resolve-input.js";
import type { BudgetQuestion } from "./governor/budget-question.js";
import type { Governor } from "./governor/governor.js";
import type { SessionHooks } from "./hooks/session-hooks.js";
import type { McpManager } from "./mcp/mcp-manager.js";
import type { Safety } from "./permissions/create-safety.js";
import type { SecretRegistry } from "./session/redact-secrets.js";
import type { SessionManager } from "./session/session-manager.js";
import type { SessionEvent } from "./session-events.js";
import type { SessionInfo } from "./session-info.js";
import type { SessionOp, SessionOpResults } from "./session-ops.js";
import type { TodoStore } from "./tools/todo-tool.js";
import type { ApprovalAnswer } from "./user-interface.js";
import type { UserShell } from "./user-shell.js";

/** The ops a session runs through code start-up gives it (docs/review.md, docs/memory.md), not its own. */
export type ExtraOps = {
  review?: (op: Extract<SessionOp, { type: "review" }>, signal: AbortSignal) => Promise<SessionOpResults["review"]>;
  remember?: (op: Extract<SessionOp, { type: "remember" }>) => Promise<SessionOpResults["remember"]>;
};

export type AgentSessionOptions = {
  model: Model;
  apiKey: string | undefined;
  systemPrompt: string;
  thinkingLevel: ThinkingLevel;
  tools: AnyAgentTool[];
  messages: AgentMessage[];
  store: SessionManager;
  /** Where `newSession`, `open` and `fork` create or look for session files (`$GYRE_HOME/sessions`). */
  sessionsDir?: string;
  budgets?: AgentBudgets;
  retry?: RetryOptions;
  /** A model stream that sends nothing for this long fails (default: the provider layer's 120 s). */
  idleTimeoutMs?: number;
  /** Tool calls with larger arguments (JSON bytes) are dropped unrun (default: the agent's 1 MiB). */
  maxToolArgumentBytes?: number;
  /** Adds the provider's server-side web search to every model call of the agent (not to summaries). */
  webSearch?: boolean;
  /** Resolves a key for another provider after `setModel`. */
  getApiKey?: (provider: string) => string | undefined;
  compaction?: AutoCompactionOptions;
  /** Replaces @gyre/ai `stream` for every model call, summaries included (proxies, tests). */
  streamFn?: StreamFunction;
  beforeToolCall?: (input: BeforeToolCallInput, signal: AbortSignal) => Promise<BeforeToolCallResult | undefined>;
  /** Runs after each tool, before extensions' handlers see the result (the user's PostToolUse hooks). */
  afterToolCall?: (input: AfterToolCallInput, signal: AbortSignal) => Promise<AfterToolCallResult | undefined>;
  /** The user's shell hooks (docs/hooks.md); the Stop hook reads the agent's events. */
  hooks?: SessionHooks;
  /** Workspace checkpoints (docs/design/rewind.md): taken before file-changing runs; `rewind` uses them. */
  checkpoints?: WorkspaceCheckpoints;
  /** Extensions: their hooks run in the loop and every `SessionEvent` reaches their handlers. */
  extensions?: ExtensionRunner;
  /** Harness parts that report events of their own (subagents, the todo list); each gets the session's emit once. */
  eventSources?: ((emit: (event: SessionEvent) => void) => void)[];
  /** The tree budget and loop detector; without one, only the agent's own per-run budgets apply. */
  governor?: Governor;
  /** Asked when the tree's budget ends a run (interactive mode): raised limits go on with the same run. */
  askBudget?: BudgetQuestion;
  /** Runs the user's `!cmd` commands (the bash tool's sandbox); without it `runShell` throws. */
  userShell?: UserShell;
  /** Turns slash input into a prompt (templates, skills) or runs a command; default: text as it is. */
  resolveInput?: (text: string) => Promise<InputResolution>;
  /** The sandbox, rules, approvals and plan mode (`set_mode`); without it the session has no permission modes. */
  safety?: Safety;
  /** The MCP servers the session started (statuses, resources); closed by `dispose`. */
  mcp?: McpManager;
  /** The first prompt waits (bounded) for the MCP servers, as headless runs do; failures become notices. */
  waitForMcp?: boolean;
  /** How long `waitForMcp` waits at most (default: the MCP manager's start-up timeout). */
  mcpStartupTimeoutMs?: number;
  /** The todo list the todo tool writes. */
  todos?: TodoStore;
  /** `reload`: settings, skills, templates, context files and extensions read again; one line per change. */
  reload?: () => Promise<string[]>;
  /** Answers an `approval_request` by its id (an RPC or ACP client's); false when none waits with it. */
  answerApproval?: (id: string, answer: ApprovalAnswer) => boolean;
  /** Keys this session learns (a model switch's) are added here; default the process's registry. */
  secrets?: SecretRegistry;
  /** `review` and `remember`: what they need lives outside the session (the runtime's tools, files). */
  extraOps?: ExtraOps;
  /** Where the session runs, for front ends (`AgentSession.info`). */
  info?: SessionInfo;
  /**
   * What start-up created for the session, in order of creation (MCP, sandbox, checkpoints…):
   * `dispose` closes them last first, after the run is stopped and written, before the store.
   */
  owned?: readonly { name: string; close: () => Promise<void> | void }[];
};

/**
 * The `Agent` a session drives: its options, the current key for the current provider (others
 * resolve their own), extension hooks in the loop, and listener failures reported to `notice`.
 * A run stops after a turn when the governor says so or when `stopToCompact` asks for a pause to
 * compact (the session then compacts and continues).
 */
export function createSessionAgent(
  options: AgentSessionOptions,
  hooks: {
    apiKey(): string | undefined;
    notice(message: string): void;
    stopToCompact(turn: TurnEndContext): boolean;
    /** Why a tool the model called is withheld (plan mode), for its error result. */
    describeUnavailableTool?(name: string): string | undefined;
  },
): Agent {
  const agent: Agent = new Agent({
    model: options.model,
    systemPrompt: options.systemPrompt,
    thinkingLevel: options.thinkingLevel,
    tools: options.tools,
    messages: options.messages,
    budgets: options.budgets,
    ...(options.maxToolArgumentBytes ? { maxToolArgumentBytes: options.maxToolArgumentBytes } : {}),
    ...(options.streamFn ? { streamFn: options.streamFn } : {}),
    streamOptions: {
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.idleTimeoutMs ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
      ...(options.webSearch ? { webSearch: true } : {}),
    },
    getApiKey: (provider) => (provider === agent.state.model.provider ? hooks.apiKey() : options.getApiKey?.(provider)),
    ...extensionAgentOptions(options.extensions, options.beforeToolCall, options.afterToolCall),
    describeUnavailableTool: (name) => hooks.describeUnavailableTool?.(name),
    // The governor first: a run it ends must not be compacted and continued. A final answer (a
    // turn without tool calls) ends the run by itself: stopping it there would ask to raise a
    // budget nothing needs. A turn the loop would start after it still meets the loop's own budget.
    shouldStopAfterTurn: (turn) =>
      (turn.toolResults.length > 0 && options.governor?.shouldStop() === true) || hooks.stopToCompact(turn),
    onListenerError: (error, event) => hooks.notice(`a listener failed on "${event.type}": ${describeError(error)}`),
  });
  return agent;
}

/** Runs an op the session hands on (`extraOps`); one it has no handler for fails with a sentence. */
export async function runExtraOp(options: AgentSessionOptions, op: SessionOp, signal: AbortSignal): Promise<unknown> {
  const ops = options.extraOps ?? {};
  if (op.type === "review" && ops.review) return ops.review(op, signal);
  if (op.type === "remember" && ops.remember) return ops.remember(op);
  if (op.type === "review" || op.type === "remember") throw new Error(`/${op.type} is not available in this session.`);
  throw new Error(`The op "${op.type}" is handled before it runs.`);
}

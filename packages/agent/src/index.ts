/**
 * @gyre/agent — the agent loop: tools, validation, hooks, queues, budgets and Agent state.
 * Argument validation (ajv) loads on first use: `(await loadValidateArguments())(schema, args)`,
 * so importing this entry stays cheap (start-up time).
 */
export {
  Agent,
  type AgentListener,
  type AgentOptions,
  type AgentState,
  createUserMessage,
  type QueueMode,
} from "./agent.js";
export { describeBudget } from "./budgets.js";
export {
  capToolCall,
  DEFAULT_MAX_TOOL_ARGUMENT_BYTES,
  DROPPED_ARGUMENTS_KEY,
  type DroppedArguments,
  readDroppedArguments,
} from "./cap-tool-arguments.js";
export { loadValidateArguments } from "./load-validate-arguments.js";
export { type AgentEventListener, runAgentLoop, runAgentLoopWithListener } from "./run-agent-loop.js";
export { convertToLlm } from "./stream-assistant.js";
export type {
  AfterToolCallInput,
  AfterToolCallResult,
  AgentBudgets,
  AgentContext,
  AgentEndReason,
  AgentEvent,
  AgentLoopConfig,
  AgentLoopOptions,
  AgentMessage,
  AgentRunResult,
  AgentTool,
  AgentToolResult,
  AnyAgentTool,
  BeforeToolCallInput,
  BeforeToolCallResult,
  BudgetName,
  CustomMessage,
  ToolExecutionContext,
  TurnEndContext,
} from "./types.js";
export type { ValidationOutcome } from "./validate-arguments.js";

/**
 * @gyre/agent — the agent loop: tools, validation, hooks, queues, budgets and Agent state.
 */
export {
  Agent,
  type AgentListener,
  type AgentOptions,
  type AgentState,
  createUserMessage,
  type QueueMode,
} from "./agent.js";
export { applyStreamEvent } from "./apply-stream-event.js";
export { describeBudget } from "./budgets.js";
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
export { type ValidationOutcome, validateArguments } from "./validate-arguments.js";

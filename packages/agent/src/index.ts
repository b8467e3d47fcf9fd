/**
 * @gyre/agent — the agent loop: tools, validation, hooks, queues, budgets and Agent state.
 */
export type {
  AgentEvent,
  AgentMessage,
  AgentTool,
  AgentToolResult,
  AnyAgentTool,
  BudgetName,
  CustomMessage,
  ToolExecutionContext,
} from "./types.js";

/**
 * The spine of @gyre/agent: the tool contract, agent messages and events (DESIGN §4).
 */
import type {
  AssistantMessage,
  AssistantMessageEvent,
  ImageContent,
  Message,
  TextContent,
  Tool,
  ToolResultMessage,
} from "@gyre/ai";
import type { Static, TSchema } from "@sinclair/typebox";

/** What a tool returns: `content` goes to the model, `details` to UIs and logs. */
export type AgentToolResult<TDetails = unknown> = {
  content: (TextContent | ImageContent)[];
  details?: TDetails;
  /** When every result of a batch says `terminate`, the run stops after the batch. */
  terminate?: boolean;
};

/** What a running tool receives besides its arguments. */
export type ToolExecutionContext<TDetails = unknown> = {
  toolCallId: string;
  /** Fires when the user aborts the run; tools must stop promptly and clean up. */
  signal: AbortSignal;
  /** Streams a partial result to UIs (`tool_execution_update`). */
  onUpdate?: (partialResult: AgentToolResult<TDetails>) => void;
};

/**
 * A tool: a plain object. Only `name`, `description` and `parameters` reach the model.
 * `execute` throws to report failure; the loop turns the throw into an error result whose text
 * is the error message, so write messages for the model ("Use offset=2001 to continue").
 */
export type AgentTool<TParameters extends TSchema = TSchema, TDetails = unknown> = Tool & {
  parameters: TParameters;
  label: string;
  /** "sequential" makes the whole batch this call is in run in order. Default "parallel". */
  executionMode?: "parallel" | "sequential";
  /** A compatibility shim run on raw arguments before validation (e.g. accept an old argument shape). */
  prepareArguments?: (args: Record<string, unknown>) => Record<string, unknown>;
  execute: (args: Static<TParameters>, context: ToolExecutionContext<TDetails>) => Promise<AgentToolResult<TDetails>>;
};

// biome-ignore lint/suspicious/noExplicitAny: a list of tools holds tools with different parameter and detail types
export type AnyAgentTool = AgentTool<any, any>;

/** A message for UIs and extensions that the model does not see unless `convertToLlm` maps it. */
export type CustomMessage = {
  role: "custom";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  /** Whether UIs show it. */
  display: boolean;
  details?: unknown;
  timestamp: number;
};

export type AgentMessage = Message | CustomMessage;

export type BudgetName = "turns" | "tokens" | "cost" | "time";

/** Events of one agent run (DESIGN §4) plus harness events. Plain JSON. */
export type AgentEvent =
  | { type: "agent_start" }
  | { type: "agent_end"; messages: AgentMessage[] }
  | { type: "turn_start" }
  | { type: "turn_end"; message: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: "message_start"; message: AgentMessage }
  | { type: "message_update"; event: AssistantMessageEvent }
  | { type: "message_end"; message: AgentMessage }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: Record<string, unknown> }
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; partialResult: AgentToolResult }
  | { type: "tool_execution_end"; toolCallId: string; toolName: string; result: AgentToolResult; isError: boolean }
  | { type: "retry"; attempt: number; maxRetries: number; delayMs: number; reason: string }
  | { type: "budget_reached"; budget: BudgetName; limit: number; used: number; reason: string };
